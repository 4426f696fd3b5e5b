/*
** An FMU as a component active in one mode (src/fmi/component.c, through
** the C API): the Reference FMUs' VanDerPol (FMI 2.0 and 3.0) runs in
** mode "fmu" of chart main, a hand-written Van der Pol oscillator (x0' =
** x1, x1' = mu (1 - x0^2) x1 - x0) in mode "hand"; time events switch
** twice, the transitions' actions carry the states across (vdp.x0 := x0
** ...). Both orders (the FMU first, entered at t0 and again at t = 12;
** the hand-written one first) must match a model that is hand-written
** throughout, with the same switches, to within 100 rtol max|x| (each
** run's global error, rtol 1e-8 over 20 s, is of the order of rtol max|x|;
** FMI 2.0 and 3.0 with mu = 1, and 2.0 with mu = 2 set as the model's
** parameter vdp.mu).
** The FMU's columns have values exactly while its mode is active. (The
** runs agree to the bit: the same finite-difference Jacobian, and the
** FMU's arithmetic is the hand-written one.) Skipped (77) without the FMUs.
*/
#include "check.h"
#include "rows.h"
#include "fmi/fmu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RTOL 1e-8
#define ATOL 1e-10
#define T_END 20.0

static const double t_switch[2] = { 5.0, 12.0 };

static int vdp_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    double mu = p[*(const int *)user];
    ydot[0] = y[1];
    ydot[1] = mu * (1 - y[0] * y[0]) * y[1] - y[0];
    return 0;
}

static int no_equations(double t, const double *y, const double *yp, const double *p,
                        double *res, void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)res, (void)user;
    return 0;
}

/* Copy the states: names[0], names[1] := names[2], names[3]. */
static int copy_states(hydae_action *a, void *user)
{
    const char *const *names = user;
    return hydae_set(a, names[0], hydae_get(a, names[2]))
           || hydae_set(a, names[1], hydae_get(a, names[3]));
}

static const char *const to_fmu[] = { "vdp.x0", "vdp.x1", "x0", "x1" };
static const char *const to_hand[] = { "x0", "x1", "vdp.x0", "vdp.x1" };

static int mu_index;

static hydae_mode *hand_mode(hydae_chart *c, const char *name)
{
    hydae_mode *mode = hydae_chart_add_mode(c, name);
    if (hydae_mode_add_var(mode, "x0", HYDAE_DIFFERENTIAL, 2.0) < 0
        || hydae_mode_add_var(mode, "x1", HYDAE_DIFFERENTIAL, 0.0) < 0
        || hydae_mode_set_rhs(mode, vdp_rhs, &mu_index))
        return NULL;
    return mode;
}

/* first -> second at 5, second -> first at 12. */
static int switch_twice(hydae_chart *c, hydae_mode *first, hydae_mode *second,
                        const char *const *there, const char *const *back)
{
    hydae_transition *go = hydae_chart_add_transition(c, "go", first, second);
    hydae_transition *ret = hydae_chart_add_transition(c, "back", second, first);
    return !go || !ret || hydae_transition_on_time(go, t_switch[0])
           || hydae_transition_on_time(ret, t_switch[1])
           || (there && hydae_transition_set_action(go, copy_states, (void *)there))
           || (back && hydae_transition_set_action(ret, copy_states, (void *)back));
}

/* Hand-written throughout, with the same two switches (the integrator
** restarts at the same times). */
static hydae_model *all_hand_model(double mu)
{
    hydae_model *m = hydae_model_create("hand");
    mu_index = hydae_model_add_param(m, "mu", mu);
    hydae_chart *c = hydae_model_add_chart(m, "main");
    hydae_mode *one = hand_mode(c, "one"), *two = hand_mode(c, "two");
    if (!one || !two || switch_twice(c, one, two, NULL, NULL) || hydae_model_check(m)) {
        CHECK(0, "the hand-written model: %s", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

/* Mode "fmu" declares the FMU's states (shared with the FMU's chart) and
** has no equations of its own. */
static hydae_model *switch_model(const char *path, int fmu_first, double mu)
{
    hydae_model *m = hydae_model_create("switch");
    mu_index = hydae_model_add_param(m, "mu", mu); /* the hand-written mode's */
    hydae_chart *c = hydae_model_add_chart(m, "main");
    hydae_mode *fmu = hydae_chart_add_mode(c, "fmu");
    hydae_mode *hand = hand_mode(c, "hand");
    int ok = hand && hydae_mode_add_var(fmu, "vdp.x0", HYDAE_DIFFERENTIAL, 2.0) == 0
             && hydae_mode_add_var(fmu, "vdp.x1", HYDAE_DIFFERENTIAL, 0.0) == 1
             && hydae_mode_set_residual(fmu, 0, no_equations, NULL) == 0
             && hydae_chart_set_initial(c, fmu_first ? fmu : hand) == 0
             && (fmu_first ? switch_twice(c, fmu, hand, to_hand, to_fmu)
                           : switch_twice(c, hand, fmu, to_fmu, to_hand)) == 0;
    char err[1024] = "";
    ok = ok && hy_fmu_add_component(m, fmu, "vdp", path, err, sizeof err) != NULL;
    ok = ok && hydae_model_set_param(m, "vdp.mu", mu) == 0
         && hydae_model_check(m) == 0;
    CHECK(ok, "the switching model: %s %s", err, hydae_model_errmsg(m));
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

/* x_k at row r: the hand-written column, or the FMU's where that is empty. */
static double state(const hydae_model *m, const test_rows *rows, int r, int k)
{
    double hand = test_value(rows, r, test_column(m, k ? "x1" : "x0"));
    int fmu = test_column(m, k ? "vdp.x1" : "vdp.x0");
    return isnan(hand) && fmu >= 0 ? test_value(rows, r, fmu) : hand;
}

static void check_switching(const char *version, int fmu_first, double mu)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/VanDerPol.fmu", HYDAE_FMU_DIR, version);
    hydae_model *m = switch_model(path, fmu_first, mu), *ref = all_hand_model(mu);
    test_rows rows, ref_rows;
    int status = m ? test_run(m, NULL, T_END, 0.1, RTOL, ATOL, &rows) : -1;
    int ref_status = ref ? test_run(ref, NULL, T_END, 0.1, RTOL, ATOL, &ref_rows) : -1;
    CHECK(status == 0 && ref_status == 0, "VanDerPol %s: runs %d, %d", version, status,
          ref_status);
    if (status || ref_status) {
        hydae_model_free(m);
        hydae_model_free(ref);
        return;
    }
    /* Grid rows only: the event rows are the same times in both. */
    double worst = 0, scale = 0;
    int n_compared = 0, n_fmu_rows = 0, fmu_col = test_column(m, "vdp.x0");
    for (int r = 0, q = 0; r < rows.n_rows && q < ref_rows.n_rows; r++, q++) {
        CHECK(rows.t[r] == ref_rows.t[q], "row %d at %g and %g", r, rows.t[r], ref_rows.t[q]);
        for (int k = 0; k < 2; k++) {
            double got = state(m, &rows, r, k), want = state(ref, &ref_rows, q, k);
            worst = fmax(worst, fabs(got - want));
            scale = fmax(scale, fabs(want));
        }
        n_compared++;
        int in_fmu_time = (rows.t[r] >= t_switch[0] && rows.t[r] < t_switch[1]) != fmu_first;
        if (rows.kind[r] == HYDAE_ROW_GRID && fmu_col >= 0) {
            /* The FMU's states have values while its mode is active only. */
            CHECK((!isnan(test_value(&rows, r, fmu_col))) == in_fmu_time,
                  "VanDerPol %s: vdp.x0 = %g at t = %g", version,
                  test_value(&rows, r, fmu_col), rows.t[r]);
            n_fmu_rows += in_fmu_time;
        }
    }
    double tol = 100 * RTOL * fmax(scale, 1.0);
    printf("VanDerPol %s, mu = %g, %s first: %d rows (%d with the FMU), max |switching - "
           "hand-written| = %.3g (tolerance %.3g)\n", version, mu, fmu_first ? "FMU" : "hand",
           n_compared, n_fmu_rows, worst, tol);
    CHECK(rows.n_rows == ref_rows.n_rows && n_compared > 200 && n_fmu_rows > 50,
          "VanDerPol %s: %d rows, %d hand-written, %d with the FMU", version, rows.n_rows,
          ref_rows.n_rows, n_fmu_rows);
    CHECK(worst <= tol, "VanDerPol %s: %.3g from the hand-written model", version, worst);
    test_rows_free(&rows);
    test_rows_free(&ref_rows);
    hydae_model_free(m);
    hydae_model_free(ref);
}

int main(void)
{
    struct stat st;
    char path[1024];
    snprintf(path, sizeof path, "%s/2.0/VanDerPol.fmu", HYDAE_FMU_DIR);
    if (stat(path, &st) != 0) {
        printf("no test FMUs in %s: skipped\n", HYDAE_FMU_DIR);
        return 77;
    }
    static const char *const versions[] = { "2.0", "3.0" };
    for (int v = 0; v < 2; v++) {
        check_switching(versions[v], 1, 1.0);
        check_switching(versions[v], 0, 1.0);
    }
    check_switching("2.0", 1, 2.0);
    return CHECK_DONE();
}
