/*
** The linear solvers' choices of src/linalg (issue 12): the
** Curtis-Powell-Reid column colouring (coloring.c) checked for validity
** and against the greedy colouring computed from its definition, and the
** automatic choice between dense, band and KLU (linsol.c) on shapes whose
** faster solver was measured (bench/rule.sh), and the band solver's
** permutation of the u/v-ordered Brusselator.
*/
#include "check.h"
#include "linsol_patterns.h"

#include "linalg/backends.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* Colouring                                                           */

/* No two columns of one colour share a row; every column has exactly one
** colour. Returns 1 when valid. */
static int check_coloring(const char *what, const hy_pattern *p,
                          const hy_coloring *c)
{
    const size_t n = p->n;
    int ok = 1;
    CHECK(c->n == n, "%s: coloring of %zu columns, want %zu", what, c->n, n);
    CHECK(c->n_colors <= n && (n == 0 || c->n_colors >= 1),
          "%s: %zu colours for %zu columns", what, c->n_colors, n);
    if (c->n != n || c->n_colors > n)
        return 0;
    CHECK(c->color_start[0] == 0 && c->color_start[c->n_colors] == (int64_t)n,
          "%s: colour starts 0 .. %lld, want 0 .. %zu", what,
          (long long)c->color_start[c->n_colors], n);
    int64_t *color_of = xmalloc(n * sizeof *color_of);
    int64_t *row_seen = xmalloc(n * sizeof *row_seen);
    for (size_t j = 0; j < n; j++)
        color_of[j] = -1;
    for (size_t k = 0; k < c->n_colors; k++) {
        if (c->color_start[k + 1] <= c->color_start[k])
            ok = 0; /* an empty colour */
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++) {
            int64_t j = c->column[q];
            if (j < 0 || (size_t)j >= n || color_of[j] != -1) {
                ok = 0;
                continue;
            }
            color_of[j] = (int64_t)k;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (color_of[j] == -1)
            ok = 0;
    CHECK(ok, "%s: a column without exactly one colour, or an empty colour",
          what);
    /* row_seen[i] = the last colour k whose columns touched row i. */
    int shared = 0;
    for (size_t i = 0; i < n; i++)
        row_seen[i] = -1;
    for (size_t k = 0; ok && k < c->n_colors; k++)
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++) {
            size_t j = (size_t)c->column[q];
            for (int64_t r = p->col_start[j]; r < p->col_start[j + 1]; r++) {
                size_t i = (size_t)p->row[r];
                if (row_seen[i] == (int64_t)k)
                    shared = 1;
                row_seen[i] = (int64_t)k;
            }
        }
    CHECK(!shared, "%s: two columns of one colour share a row", what);
    free(color_of);
    free(row_seen);
    return ok && !shared;
}

/* The greedy colouring in column order computed the plain way, from the
** definition: column j gets the smallest colour no earlier column sharing
** a row with it has (O(n^2 nnz), for small n). */
static void naive_greedy(const hy_pattern *p, size_t *color)
{
    const size_t n = p->n;
    unsigned char *taken = xmalloc(n + 1);
    for (size_t j = 0; j < n; j++) {
        memset(taken, 0, n + 1);
        for (size_t k = 0; k < j; k++) {
            int share = 0;
            for (int64_t a = p->col_start[j]; a < p->col_start[j + 1] && !share; a++)
                for (int64_t b = p->col_start[k]; b < p->col_start[k + 1]; b++)
                    if (p->row[a] == p->row[b])
                        share = 1;
            if (share)
                taken[color[k]] = 1;
        }
        size_t c = 0;
        while (taken[c])
            c++;
        color[j] = c;
    }
    free(taken);
}

/* The colouring is the greedy one exactly (both of coloring.c's ways:
** up to 64 colours by row words, beyond by the transpose). */
static void check_greedy(const char *what, const hy_pattern *p, const hy_coloring *c)
{
    size_t *want = xmalloc((p->n > 0 ? p->n : 1) * sizeof *want);
    naive_greedy(p, want);
    size_t n_want = 0;
    for (size_t j = 0; j < p->n; j++)
        if (want[j] + 1 > n_want)
            n_want = want[j] + 1;
    int same = c->n_colors == n_want;
    for (size_t k = 0; same && k < c->n_colors; k++)
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++)
            if (want[c->column[q]] != k || (q > c->color_start[k] && c->column[q] <= c->column[q - 1]))
                same = 0;
    CHECK(same, "%s: %zu colours, not the greedy colouring (%zu colours)", what, c->n_colors,
          n_want);
    free(want);
}

static void test_coloring(void)
{
    static const size_t bands[][3] = {
        { 0, 0, 0 },  { 1, 0, 0 }, { 5, 0, 0 },   { 10, 1, 1 }, { 10, 9, 9 },
        { 50, 3, 0 }, { 50, 0, 4 }, { 100, 2, 7 }, { 1000, 10, 10 },
    };
    for (size_t s = 0; s < sizeof bands / sizeof bands[0]; s++) {
        const size_t n = bands[s][0], ml = bands[s][1], mu = bands[s][2];
        hy_pattern *p = pattern_band(n, ml, mu);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "band n %zu ml %zu mu %zu", n, ml, mu);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c)) {
            const size_t w = ml + mu + 1;
            CHECK(c.n_colors == (n < w ? n : w), "%s: %zu colours, want %zu",
                  what, c.n_colors, n < w ? n : w);
            int mod_ok = 1;
            for (size_t k = 0; k < c.n_colors; k++)
                for (int64_t q = c.color_start[k]; q < c.color_start[k + 1]; q++)
                    if ((size_t)c.column[q] % w != k)
                        mod_ok = 0;
            CHECK(mod_ok, "%s: column j does not get colour j mod %zu", what, w);
        }
        hy_coloring_free(&c);
        pattern_free(p);
    }
    for (int r = 0; r < 20; r++) {
        const size_t n = 1 + rng_below(300), per_col = rng_below(6);
        hy_pattern *p = pattern_random(n, per_col);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "random n %zu nnz %zu", n, p->nnz);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c))
            check_greedy(what, p, &c);
        hy_coloring_free(&c);
        pattern_free(p);
    }
    {
        unsigned char *mask = xmalloc(40 * 40);
        memset(mask, 1, 40 * 40);
        hy_pattern *p = pattern_from_mask(40, mask);
        hy_coloring c;
        CHECK(hy_coloring_create(&c, p) == 0 && check_coloring("dense 40", p, &c)
                  && c.n_colors == 40,
              "dense 40: %zu colours", c.n_colors);
        hy_coloring_free(&c);
        pattern_free(p);
        free(mask);
    }
    /* Dense patterns and random ones with many entries a column: from a
    ** few colours to more than 64 (the general way). */
    static const size_t many[][2] = { { 63, 63 }, { 64, 64 }, { 65, 65 }, { 100, 100 },
                                      { 150, 12 }, { 200, 20 }, { 300, 4 } };
    for (size_t s = 0; s < sizeof many / sizeof many[0]; s++) {
        const size_t n = many[s][0], per_col = many[s][1];
        hy_pattern *p;
        if (per_col == n) {
            unsigned char *mask = xmalloc(n * n);
            memset(mask, 1, n * n);
            p = pattern_from_mask(n, mask);
            free(mask);
        } else {
            p = pattern_random(n, per_col);
        }
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "n %zu, %zu a column", n, per_col);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c))
            check_greedy(what, p, &c);
        CHECK(per_col != n || c.n_colors == n, "%s: %zu colours for a dense pattern", what,
              c.n_colors);
        hy_coloring_free(&c);
        pattern_free(p);
    }
    static const size_t grids[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 30, 40 }, { 1414, 1415 } };
    for (size_t s = 0; s < sizeof grids / sizeof grids[0]; s++) {
        hy_pattern *p = pattern_laplacian_2d(grids[s][0], grids[s][1]);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "5-point %zu x %zu", grids[s][0], grids[s][1]);
        clock_t t0 = clock();
        int status = hy_coloring_create(&c, p);
        double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c)) {
            /* A column meets the columns within grid distance 2; six of
            ** them come before it in the column order, so the greedy
            ** colouring needs at most 7 colours (5 would be optimal). */
            CHECK(c.n_colors <= 7, "%s: %zu colours", what, c.n_colors);
            printf("coloring %s (n %zu, nnz %zu): %zu colours in %.3f s\n",
                   what, p->n, p->nnz, c.n_colors, seconds);
        }
        hy_coloring_free(&c);
        pattern_free(p);
    }
    hy_coloring_free(NULL);
}

/* ------------------------------------------------------------------ */
/* The automatic choice                                                */

/* 1-D reaction-diffusion with w species interleaved: a dense w x w block
** per grid point, and diffusion to the neighbouring points of every species
** (all_diffuse) or of the first one only (Medical Akzo with w = 2). */
static hy_pattern *pattern_species(size_t n, size_t w, int all_diffuse)
{
    unsigned char *mask = calloc(n * n, 1);
    if (mask == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            int same_point = i / w == j / w, first_j = j % w == 0;
            if (same_point)
                mask[i + j * n] = all_diffuse || first_j || i % w == 0 || i == j;
            else
                mask[i + j * n] = (i + w == j || j + w == i) && (all_diffuse || first_j);
        }
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    return p;
}

/* hy_linsol_choose's automatic choice on shapes whose faster solver
** bench/rule.sh measured (instruction counts of a factorisation and ten
** solves, KLU / band, bench/results/rule.csv): wider shapes of Medical
** Akzo's kind (6 and 8 species, one diffusing: 0.55, 0.43) and the 2-D
** 5-point grid go to KLU; Medical Akzo itself (1.54) and with 3 species
** (1.15), the Brusselator's (2.04), tridiagonal (2.31), full bands (1.71 ..
** 2.12) and many species (1.54 .. 1.93) to band; no pattern, small n, a
** dense pattern to dense. */
static void test_auto_choice(void)
{
    struct {
        const char *what;
        hy_pattern *p;
        hy_ls_kind want;
    } cases[] = {
        { "6 species, one diffuses (n 1200)", pattern_species(1200, 6, 0), HY_LS_KLU },
        { "8 species, one diffuses (n 800)", pattern_species(800, 8, 0), HY_LS_KLU },
        { "5-point 30 x 30", pattern_laplacian_2d(30, 30), HY_LS_KLU },
        { "Medical Akzo (n 400, 2 species, one diffuses)", pattern_species(400, 2, 0), HY_LS_BAND },
        { "3 species, one diffuses (n 900)", pattern_species(900, 3, 0), HY_LS_BAND },
        { "Brusselator (n 2000, 2 species)", pattern_species(2000, 2, 1), HY_LS_BAND },
        { "8 species (n 800)", pattern_species(800, 8, 1), HY_LS_BAND },
        { "tridiagonal (n 1000)", pattern_band(1000, 1, 1), HY_LS_BAND },
        { "full band ml = mu = 4 (n 500)", pattern_band(500, 4, 4), HY_LS_BAND },
        { "full band ml = 10, mu = 3 (n 500)", pattern_band(500, 10, 3), HY_LS_BAND },
        { "Medical Akzo's shape at n 60 (<= 64)", pattern_species(60, 2, 0), HY_LS_DENSE },
        { "dense pattern (n 100)", pattern_band(100, 99, 99), HY_LS_DENSE },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hy_ls_kind want = cases[k].want, got = HY_LS_AUTO;
        if (want == HY_LS_KLU && !hy_ls_available(HY_LS_KLU))
            want = HY_LS_BAND;
        char why[256];
        int status = hy_linsol_choose(HY_LS_AUTO, cases[k].p->n, cases[k].p, &got, why,
                                      sizeof why);
        CHECK(status == 0 && got == want, "auto on %s: %s (want %s) %s", cases[k].what,
              hy_ls_kind_name(got), hy_ls_kind_name(want), why);
        /* An explicit choice is kept. */
        status = hy_linsol_choose(HY_LS_BAND, cases[k].p->n, cases[k].p, &got, why, sizeof why);
        CHECK(status == 0 && got == HY_LS_BAND, "band on %s: %s", cases[k].what,
              hy_ls_kind_name(got));
        pattern_free(cases[k].p);
    }
    hy_ls_kind got = HY_LS_AUTO;
    char why[256];
    CHECK(hy_linsol_choose(HY_LS_AUTO, 5000, NULL, &got, why, sizeof why) == 0
              && got == HY_LS_DENSE,
          "auto without a pattern: %s", hy_ls_kind_name(got));
}

/* The 1-D Brusselator's pattern with u[1..m] numbered before v[1..m]
** (examples/brusselator.hym): each species diffuses to its neighbours,
** u_i and v_i couple. Its band is m wide. */
static hy_pattern *pattern_brusselator_uv(size_t m)
{
    const size_t n = 2 * m;
    unsigned char *mask = calloc(n * n, 1);
    if (mask == NULL)
        exit(2);
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < m; i++) {
            size_t j = s * m + i, other = (1 - s) * m + i;
            mask[other + j * n] = 1;
            if (i > 0)
                mask[j - 1 + j * n] = 1;
            if (i + 1 < m)
                mask[j + 1 + j * n] = 1;
        }
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    return p;
}

/* The u/v-ordered Brusselator goes to the band solver on the reverse
** Cuthill-McKee permutation: its graph is a ladder, whose level structure
** from a corner has 2 nodes a level, so Cuthill-McKee numbers neighbours
** at most 2 + 2 - 1 = 3 apart; a band of 3 costs less than KLU (the
** interleaved order, band 2, was measured 2.04 times cheaper). The same
** pattern interleaved keeps its order (no permutation). */
static void test_permuted_choice(void)
{
    hy_pattern *uv = pattern_brusselator_uv(1000);
    hy_ls_kind got = HY_LS_AUTO;
    char why[256];
    CHECK(uv->ml == 1000 && uv->mu == 1000, "u/v Brusselator band %zu, %zu", uv->ml, uv->mu);
    hy_band_ordering *order = NULL;
    hy_band_ordering_get(uv, &order);
    CHECK(order && order->ml <= 3 && order->mu <= 3, "u/v Brusselator permuted band %zu, %zu",
          order ? order->ml : 0, order ? order->mu : 0);
    hy_band_ordering_free(order);
    int status = hy_linsol_choose(HY_LS_AUTO, uv->n, uv, &got, why, sizeof why);
    CHECK(status == 0 && got == HY_LS_BAND, "auto on the u/v Brusselator: %s %s",
          hy_ls_kind_name(got), why);
    hy_linsol *ls = hy_linsol_create(got, uv->n, uv);
    CHECK(ls != NULL && strcmp(hy_linsol_name(ls), "band (RCM)") == 0, "u/v Brusselator: %s",
          ls ? hy_linsol_name(ls) : "(none)");
    hy_matrix *m = ls ? hy_linsol_matrix(ls) : NULL;
    CHECK(m && m->kind == HY_MAT_CSC, "u/v Brusselator: a csc matrix to fill");
    hy_linsol_free(ls);
    CHECK(uv->n_band_orderings == 1, "no pattern memo: made again, taken by create, %ld",
          uv->n_band_orderings);
    pattern_free(uv);

    hy_pattern *interleaved = pattern_species(2000, 2, 1);
    status = hy_linsol_choose(HY_LS_AUTO, interleaved->n, interleaved, &got, why, sizeof why);
    ls = status == 0 ? hy_linsol_create(got, interleaved->n, interleaved) : NULL;
    CHECK(ls != NULL && strcmp(hy_linsol_name(ls), "band") == 0
              && interleaved->n_band_orderings == 0,
          "interleaved Brusselator: %s, %ld orderings", ls ? hy_linsol_name(ls) : "(none)",
          interleaved->n_band_orderings);
    hy_linsol_free(ls);
    pattern_free(interleaved);
}

/* An optional argument: another seed for the random patterns. */
int main(int argc, char **argv)
{
    if (argc > 1)
        rng_state = strtoull(argv[1], NULL, 0);
    test_coloring();
    test_auto_choice();
    test_permuted_choice();
    return CHECK_DONE();
}
