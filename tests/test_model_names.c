/*
** The model's names at scale (src/model/names_store.c): a mode of 200,000
** variables and outputs whose names share long prefixes, several modes
** sharing names (one store slot per distinct name), names longer than an
** arena block. Every name is found where it was declared, duplicates are
** refused, a name that is not there is not found, and the result columns
** come out in declaration order with the names given.
*/
#include "check.h"
#include "hydae.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rhs_zero(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)p;
    size_t n = *(const size_t *)user;
    memset(ydot, 0, n * sizeof *ydot);
    return 0;
}

static int outputs_zero(double t, const double *y, const double *yp, const double *p,
                        double *out, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)p;
    (void)out;
    (void)user;
    return 0;
}

enum { N_BIG = 200000, N_OUT = 1000 };

static void test_many_names(void)
{
    static size_t n_big = N_BIG;
    hydae_model *m = hydae_model_create("names");
    hydae_chart *chart = hydae_model_add_chart(m, "main");
    hydae_mode *big = hydae_chart_add_mode(chart, "big");
    char name[64];
    int ok = 1;
    for (int i = 0; i < N_BIG; i++) {
        snprintf(name, sizeof name, "a_rather_long_common_prefix_%d", i);
        ok &= hydae_mode_add_var(big, name, HYDAE_DIFFERENTIAL, (double)i) == i;
    }
    CHECK(ok, "adding %d variables: an index not the declaration order", N_BIG);
    for (int i = 0; i < N_OUT; i++) {
        snprintf(name, sizeof name, "out%d", i);
        ok &= hydae_mode_add_output(big, name) == i;
    }
    CHECK(ok, "adding %d outputs", N_OUT);
    /* Duplicates, of a variable and of an output, under either kind. */
    CHECK(hydae_mode_add_var(big, "a_rather_long_common_prefix_123456", HYDAE_DIFFERENTIAL,
                             0.0) == HYDAE_ERR_MODEL,
          "a duplicate variable was accepted");
    CHECK(hydae_mode_add_var(big, "out7", HYDAE_DIFFERENTIAL, 0.0) == HYDAE_ERR_MODEL,
          "a variable with an output's name was accepted");
    CHECK(strstr(hydae_model_errmsg(m), "declared twice") != NULL,
          "the first duplicate's message: %s", hydae_model_errmsg(m));
    hydae_model_free(m);

    /* The same in a model that gets checked: lookups after the shrink. */
    m = hydae_model_create("names");
    chart = hydae_model_add_chart(m, "main");
    big = hydae_chart_add_mode(chart, "big");
    hydae_mode *small = hydae_chart_add_mode(chart, "small");
    int built = hydae_model_add_param(m, "k", 2.0) >= 0;
    /* A name longer than an arena block (64 KiB). */
    size_t long_len = 100000;
    char *long_name = malloc(long_len + 1);
    memset(long_name, 'x', long_len);
    long_name[long_len] = '\0';
    for (int i = 0; i < N_BIG; i++) {
        snprintf(name, sizeof name, "v%d", i);
        built &= hydae_mode_add_var(big, name, HYDAE_DIFFERENTIAL, (double)i) >= 0;
        if (i == N_BIG / 2)
            built &= hydae_mode_add_var(big, long_name, HYDAE_DIFFERENTIAL, -1.0) >= 0;
    }
    /* Mode small shares every tenth name of big and has one of its own. */
    for (int i = 0; i < N_BIG; i += 10) {
        snprintf(name, sizeof name, "v%d", i);
        built &= hydae_mode_add_var(small, name, HYDAE_DIFFERENTIAL, 0.5) >= 0;
    }
    built &= hydae_mode_add_var(small, "only_small", HYDAE_DIFFERENTIAL, 0.0) >= 0;
    built &= hydae_mode_set_rhs(big, rhs_zero, &n_big) == 0;
    built &= hydae_mode_set_rhs(small, rhs_zero, &n_big) == 0;
    built &= hydae_mode_set_outputs(big, outputs_zero) == 0;
    CHECK(built, "building the second model: %s", hydae_model_errmsg(m));
    CHECK(hydae_model_check(m) == 0, "check: %s", hydae_model_errmsg(m));
    int n_columns = hydae_model_n_columns(m);
    CHECK(n_columns == N_BIG + 2, "%d result columns, want %d", n_columns, N_BIG + 2);
    int bad_column = -1, bad_slot = -1, bad_var = -1;
    for (int i = 0; i < N_BIG; i++) {
        snprintf(name, sizeof name, "v%d", i);
        int column = i + (i > N_BIG / 2);
        const char *got = hydae_model_column_name(m, column);
        if (bad_column < 0 && (!got || strcmp(got, name) != 0))
            bad_column = i;
        if (bad_slot < 0 && hy_model_find_slot(m, name) != 1 + column) /* k is slot 0 */
            bad_slot = i;
        int var = -1;
        if (bad_var < 0 && (!hy_mode_find_var(big, name, &var) || var != column))
            bad_var = i;
        if (bad_var < 0 && i % 10 == 0 && (!hy_mode_find_var(small, name, &var) || var != i / 10))
            bad_var = i;
        if (bad_var < 0 && i % 10 != 0 && hy_mode_find_var(small, name, &var))
            bad_var = i;
    }
    CHECK(bad_column < 0, "column of v%d: not its name", bad_column);
    CHECK(bad_slot < 0, "slot of v%d: not its column's", bad_slot);
    CHECK(bad_var < 0, "variable v%d: not found at its index (or found in small)", bad_var);
    CHECK(hy_model_find_slot(m, long_name) == 1 + N_BIG / 2 + 1,
          "the long name's slot %d", hy_model_find_slot(m, long_name));
    const char *long_column = hydae_model_column_name(m, N_BIG / 2 + 1);
    CHECK(long_column && strcmp(long_column, long_name) == 0, "the long name's column");
    CHECK(hy_model_find_slot(m, "only_small") == N_BIG + 2, "only_small: slot %d",
          hy_model_find_slot(m, "only_small"));
    CHECK(hy_model_find_slot(m, "k") == 0, "parameter k: slot %d", hy_model_find_slot(m, "k"));
    CHECK(hy_model_find_slot(m, "v200000") < 0 && hy_model_find_slot(m, "v") < 0
              && hy_model_find_slot(m, "") < 0,
          "a name that is not there was found");
    /* Setting a start value by name reaches the right variable. */
    CHECK(hydae_model_set_start(m, "big.v199999", 7.0) == 0
              && big->vars[N_BIG].start == 7.0,
          "set_start big.v199999: %s", hydae_model_errmsg(m));
    CHECK(hydae_model_set_start(m, "v3", 4.0) == 0 && big->vars[3].start == 4.0,
          "set_start v3 (one mode): %s", hydae_model_errmsg(m));
    CHECK(hydae_model_set_start(m, "v0", 4.0) == HYDAE_ERR_ARG,
          "set_start v0, declared by two modes with different starts, was accepted");
    free(long_name);
    hydae_model_free(m);
}

int main(void)
{
    test_many_names();
    return CHECK_DONE();
}
