/*
** Units and descriptions through the C API (hydae_mode_set_var_info,
** hydae_mode_set_output_info, hydae_model_set_global_info) to the result
** columns (hydae_model_column_unit / _description): the rule "the first
** given, parameters first, then charts, modes, variables before outputs"
** checked on a model built here, where each name's expected unit is known
** by construction; refusals (bad index, after the check) with a message.
*/
#include "check.h"
#include "hydae.h"

#include <string.h>

static int rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

static int outputs(double t, const double *y, const double *yp, const double *p, double *out,
                   void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    out[0] = 2.0 * y[0];
    return 0;
}

/* The column called name, or -1. */
static int column_of(const hydae_model *m, const char *name)
{
    for (int c = 0; c < hydae_model_n_columns(m); c++)
        if (strcmp(hydae_model_column_name(m, c), name) == 0)
            return c;
    return -1;
}

int main(void)
{
    hydae_model *m = hydae_model_create("units");
    int g = hydae_model_add_param(m, "g", 9.81);
    int level = hydae_model_add_discrete(m, "level", 0.0);
    CHECK(hydae_model_set_global_info(m, g, "m/s2", "gravity") == 0, "%s", hydae_model_errmsg(m));
    CHECK(hydae_model_set_global_info(m, level, NULL, "a level") == 0, "global info");
    hydae_chart *chart = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(chart, "a");
    hydae_mode *b = hydae_chart_add_mode(chart, "b");
    /* x: a variable of a (unit "m") and of b ("km", declared later: not used);
    ** v: an output of a without a unit, a variable of b with "m/s"; w: an
    ** output of a with "rad". */
    int ax = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0);
    int av = hydae_mode_add_output(a, "v");
    int aw = hydae_mode_add_output(a, "w");
    int bx = hydae_mode_add_var(b, "x", HYDAE_DIFFERENTIAL, 1.0);
    int bv = hydae_mode_add_var(b, "v", HYDAE_DIFFERENTIAL, 1.0);
    CHECK(hydae_mode_set_rhs(a, rhs, NULL) == 0 && hydae_mode_set_outputs(a, outputs) == 0,
          "mode a");
    CHECK(hydae_mode_set_rhs(b, rhs, NULL) == 0, "mode b");
    CHECK(hydae_mode_set_var_info(b, bx, "km", "x in b") == 0, "b.x");
    CHECK(hydae_mode_set_var_info(a, ax, "m", "") == 0, "a.x");
    CHECK(hydae_mode_set_output_info(a, av, "", "speed") == 0, "a.v");
    CHECK(hydae_mode_set_var_info(b, bv, "m/s", NULL) == 0, "b.v");
    CHECK(hydae_mode_set_output_info(a, aw, "rad", NULL) == 0, "a.w");
    CHECK(hydae_mode_set_var_info(a, 5, "m", NULL) == HYDAE_ERR_ARG
              && strstr(hydae_model_errmsg(m), "no variable number 5"),
          "a bad index is refused: %s", hydae_model_errmsg(m));
    CHECK(hydae_mode_set_output_info(b, 0, "m", NULL) == HYDAE_ERR_ARG, "b has no outputs");
    CHECK(hydae_model_set_global_info(m, 2, "m", NULL) == HYDAE_ERR_ARG, "two globals only");
    /* Each refusal is recorded as the model's error: a fresh model for the check. */
    hydae_model_free(m);

    m = hydae_model_create("units");
    g = hydae_model_add_param(m, "g", 9.81);
    level = hydae_model_add_discrete(m, "level", 0.0);
    chart = hydae_model_add_chart(m, "c");
    a = hydae_chart_add_mode(chart, "a");
    b = hydae_chart_add_mode(chart, "b");
    ax = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0);
    av = hydae_mode_add_output(a, "v");
    aw = hydae_mode_add_output(a, "w");
    bx = hydae_mode_add_var(b, "x", HYDAE_DIFFERENTIAL, 1.0);
    bv = hydae_mode_add_var(b, "v", HYDAE_DIFFERENTIAL, 1.0);
    int ok = hydae_mode_set_rhs(a, rhs, NULL) == 0 && hydae_mode_set_outputs(a, outputs) == 0
             && hydae_mode_set_rhs(b, rhs, NULL) == 0
             && hydae_model_set_global_info(m, g, "m/s2", "gravity") == 0
             && hydae_model_set_global_info(m, level, NULL, "a level") == 0
             && hydae_mode_set_var_info(b, bx, "km", "x in b") == 0
             && hydae_mode_set_var_info(a, ax, "m", "") == 0
             && hydae_mode_set_output_info(a, av, "", "speed") == 0
             && hydae_mode_set_var_info(b, bv, "m/s", NULL) == 0
             && hydae_mode_set_output_info(a, aw, "rad", NULL) == 0;
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    CHECK(hydae_model_check(m) == 0, "check: %s", hydae_model_errmsg(m));
    static const struct { const char *name, *unit, *description; } want[] = {
        { "level", "", "a level" },
        { "x", "m", "x in b" },      /* a.x's unit (mode a first), b.x's description */
        { "v", "m/s", "speed" },     /* a.v has no unit: b.v's */
        { "w", "rad", "" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int c = column_of(m, want[i].name);
        CHECK(c >= 0, "column %s", want[i].name);
        if (c < 0)
            continue;
        CHECK(strcmp(hydae_model_column_unit(m, c), want[i].unit) == 0, "unit of %s: '%s', want '%s'",
              want[i].name, hydae_model_column_unit(m, c), want[i].unit);
        CHECK(strcmp(hydae_model_column_description(m, c), want[i].description) == 0,
              "description of %s: '%s', want '%s'", want[i].name,
              hydae_model_column_description(m, c), want[i].description);
    }
    CHECK(strcmp(hydae_model_column_unit(m, 99), "") == 0
              && strcmp(hydae_model_column_unit(NULL, 0), "") == 0,
          "no such column: an empty unit");
    CHECK(hydae_mode_set_var_info(a, ax, "cm", NULL) == HYDAE_ERR_ARG
              && strstr(hydae_model_errmsg(m), "already in use"),
          "after the check: refused: %s", hydae_model_errmsg(m));
    hydae_model_free(m);
    return CHECK_DONE();
}
