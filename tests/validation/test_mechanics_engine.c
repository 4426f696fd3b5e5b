/*
** The Test Set's constrained mechanical systems through the simulator: Cash's
** index-3 pendulum and the car axis (a rheonomic constraint: Phi_t, Phi_qt,
** Phi_tt) as mechanical modes (hydae_mode_set_mechanics), run in I3 and SI1
** (DSTIFF, dae_index 3 / 1) and the ODE form (VSTIFF, ABAM) with
** integr_tol and Table 1's defaults, against reference.json (scd over the
** positions at t_end). The same problems as tests/validation/
** test_mechanics*.c, there driven directly; here through the engine's
** projection, formulation choice, tolerances and restarts.
**
** RADAU (integrator_type RADAU, dae_index 1 and 3) on Andrews' mechanism
** and the car axis with the Test Set's rtol = atol (vel_tol_factor =
** dae_alg_tol_factor = 1): the mechanical block hands RADAU mech_jacobian
** and the Hessenberg indices (mech_dae_problem_for), and scd(q) is the
** direct driver's of test_radau_mech.c, where the floors come from: SI1
** within one digit of integr_tol, I3 its measured values less half a
** digit. Before, RADAU stopped on Andrews at t = 0 from integr_tol 1e-9
** on (the integrator's own difference quotients, docs/mechanics.md).
**
**   test_mechanics_engine          the asserted runs
**   test_mechanics_engine sweep    every tolerance from 1e-4 to 1e-10
*/
#include "check.h"
#include "rows.h"

#include "mech_problems.c"

/* A mech_system behind the public callbacks (which also get p). */
static int wrap_mass(double t, const double *q, const double *p, double *mass, void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->mass(t, q, mass, sys->user);
}

static int wrap_force(double t, const double *q, const double *u, const double *p, double *f,
                      void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->force(t, q, u, f, sys->user);
}

static int wrap_phi(double t, const double *q, const double *p, double *phi, void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->constraint(t, q, phi, sys->user);
}

static int wrap_g(double t, const double *q, const double *p, double *g, void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->constraint_jac(t, q, g, sys->user);
}

static int wrap_phi_t(double t, const double *q, const double *p, double *phi_t, void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->constraint_t(t, q, phi_t, sys->user);
}

static int wrap_gamma(double t, const double *q, const double *u, const double *p,
                      double *gamma, void *user)
{
    const mech_system *sys = user;
    (void)p;
    return sys->accel_rhs(t, q, u, gamma, sys->user);
}

static hydae_model *mech_model(const mech_system *sys, const double *q0, const double *u0)
{
    hydae_mechanics mech = {
        .n_q = sys->n_q, .n_c = sys->n_c, .mass = wrap_mass, .force = wrap_force,
        .constraint = wrap_phi, .constraint_jac = wrap_g,
        .constraint_t = sys->constraint_t ? wrap_phi_t : NULL, .accel_rhs = wrap_gamma,
        .multiplier_matrix = NULL,
    };
    hydae_model *m = hydae_model_create("mechanism");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "moving");
    int ok = mode != NULL;
    char name[32];
    for (int i = 0; i < sys->n_q && ok; i++) {
        snprintf(name, sizeof name, "q%d", i + 1);
        ok = hydae_mode_add_var(mode, name, HYDAE_DIFFERENTIAL, q0[i]) == i;
    }
    for (int i = 0; i < sys->n_q && ok; i++) {
        snprintf(name, sizeof name, "u%d", i + 1);
        ok = hydae_mode_add_var(mode, name, HYDAE_VELOCITY, u0[i]) == sys->n_q + i;
    }
    for (int i = 0; i < sys->n_c && ok; i++) {
        snprintf(name, sizeof name, "lambda%d", i + 1);
        ok = hydae_mode_add_var(mode, name, HYDAE_MULTIPLIER, 0.0) == 2 * sys->n_q + i;
    }
    ok = ok && hydae_mode_set_mechanics(mode, &mech, (void *)sys) == 0;
    CHECK(ok, "building the mechanism model");
    return m;
}

static const char *const forms[4][3] = {
    { "I3", "DSTIFF", "3" }, { "SI1", "DSTIFF", "1" },
    { "ODE/VSTIFF", "VSTIFF", "3" }, { "ODE/ABAM", "ABAM", "3" },
};

typedef struct engine_result {
    int ok;
    double scd_q;
    hydae_stats st;
} engine_result;

/* RADAU's runs (above): the form's name, integrator and dae_index. */
static const char *const radau_forms[2][3] = {
    { "SI1/RADAU", "RADAU", "1" }, { "I3/RADAU", "RADAU", "3" },
};

static engine_result run_engine_form(const mech_system *sys, const double *q0,
                                     const double *u0, const double *ref, double t_end,
                                     const char *const form[3], int test_set_tols,
                                     double integr_tol)
{
    engine_result er;
    memset(&er, 0, sizeof er);
    hydae_model *m = mech_model(sys, q0, u0);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows r;
    test_rows_init(&r, m);
    char tol[32];
    snprintf(tol, sizeof tol, "%g", integr_tol);
    status = s ? 0 : status;
    if (s) {
        status |= hydae_sim_set_time(s, 0.0, t_end);
        status |= hydae_sim_set_output_interval(s, t_end);
        status |= hydae_sim_set_integrator(s, form[1]);
        status |= hydae_sim_set_option(s, "dae_index", form[2]);
        status |= hydae_sim_set_option(s, "integr_tol", tol);
        if (test_set_tols) {
            status |= hydae_sim_set_option(s, "vel_tol_factor", "1");
            status |= hydae_sim_set_option(s, "dae_alg_tol_factor", "1");
        }
        status |= hydae_sim_add_row_sink(s, test_rows_sink, &r);
        if (status == 0)
            status = hydae_sim_run(s);
        hydae_sim_get_stats(s, &er.st);
    }
    er.ok = status == 0 && r.n_rows > 0 && r.t[r.n_rows - 1] == t_end;
    if (!er.ok)
        fprintf(stderr, "%s at %g: %s\n", form[0], integr_tol,
                s ? hydae_sim_errmsg(s) : hydae_model_errmsg(m));
    if (er.ok) {
        double q[16];
        for (int i = 0; i < sys->n_q; i++)
            q[i] = test_value(&r, r.n_rows - 1, i);
        er.scd_q = scd(q, ref, 0, sys->n_q);
    }
    test_rows_free(&r);
    hydae_sim_free(s);
    hydae_model_free(m);
    return er;
}

static engine_result run_engine(const mech_system *sys, const double *q0, const double *u0,
                                const double *ref, double t_end, int form, double integr_tol)
{
    return run_engine_form(sys, q0, u0, ref, t_end, forms[form], 0, integr_tol);
}

typedef struct problem {
    const char *name;
    const mech_system *sys;
    const double *y0, *ref;
    double t_end;
} problem;

static const problem problems[2] = {
    { "pendulum", &pendulum, pend_y0, pendulum_ref, 1.0 },
    { "caraxis", &caraxis, car_y0, car_ref, 3.0 },
};

static void print_run(const problem *pb, int form, double tol, const engine_result *er)
{
    printf("| %s | %s | %g | %s | %.2f | %ld | %ld | %ld | %.1e | %ld |\n", pb->name,
           forms[form][0], tol, er->ok ? "ok" : "FAIL", er->scd_q, er->st.n_steps,
           er->st.n_rejected, er->st.n_res_evals, er->st.max_constraint_violation,
           er->st.n_partitions);
}

static void sweep(void)
{
    printf("| problem | form | integr_tol | run | scd(q) | steps | rejected | evals | "
           "max |Phi| | partitions |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < 2; p++)
        for (int f = 0; f < 4; f++)
            for (double tol = 1e-4; tol >= 1e-10 * 0.99; tol *= 0.01) {
                const problem *pb = &problems[p];
                engine_result er = run_engine(pb->sys, pb->y0, pb->y0 + pb->sys->n_q, pb->ref,
                                              pb->t_end, f, tol);
                print_run(pb, f, tol, &er);
            }
}

static void check_radau(void)
{
    static const problem testset[2] = {
        { "andrews", &andrews, andrews_y0, andrews_ref, 0.03 },
        { "caraxis", &caraxis, car_y0, car_ref, 3.0 },
    };
    /* Andrews' yref holds 9.6 digits (test_radau_mech.c): SI1 to 1e-10. */
    static const struct { int problem, form; double tol, floor; } cases[] = {
        { 0, 0, 1e-5, 4.0 }, { 0, 0, 1e-8, 7.0 }, { 0, 0, 1e-10, 9.0 },
        { 1, 0, 1e-6, 5.0 }, { 1, 0, 1e-9, 8.0 }, { 1, 0, 1e-12, 11.0 },
        { 0, 1, 1e-6, 4.0 }, { 0, 1, 1e-9, 7.0 },
        { 1, 1, 1e-6, 4.4 }, { 1, 1, 1e-9, 8.4 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const problem *pb = &testset[cases[k].problem];
        const char *const *form = radau_forms[cases[k].form];
        engine_result er = run_engine_form(pb->sys, pb->y0, pb->y0 + pb->sys->n_q, pb->ref,
                                           pb->t_end, form, 1, cases[k].tol);
        printf("| %s | %s | %g | %s | %.2f | %ld | %ld | %ld | %.1e |\n", pb->name, form[0],
               cases[k].tol, er.ok ? "ok" : "FAIL", er.scd_q, er.st.n_steps,
               er.st.n_rejected, er.st.n_res_evals, er.st.max_constraint_violation);
        CHECK(er.ok, "%s %s at %g ran", pb->name, form[0], cases[k].tol);
        CHECK(er.scd_q >= cases[k].floor, "%s %s at %g: scd(q) %.2f < %.2f", pb->name, form[0],
              cases[k].tol, er.scd_q, cases[k].floor);
        CHECK(er.st.max_constraint_violation <= 10.0 * cases[k].tol,
              "%s %s at %g: max |Phi| %.3g", pb->name, form[0], cases[k].tol,
              er.st.max_constraint_violation);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
        sweep();
        return 0;
    }
    /* Floors: the measured scd(q) (sweep) less about half a digit. */
    static const struct { int problem, form; double tol, floor; } cases[] = {
        { 0, 0, 1e-6, 3.2 }, { 0, 1, 1e-6, 4.6 }, { 0, 2, 1e-6, 3.6 }, { 0, 3, 1e-6, 4.5 },
        { 0, 0, 1e-9, 4.4 }, { 0, 1, 1e-9, 9.0 }, { 0, 2, 1e-9, 6.7 }, { 0, 3, 1e-9, 8.2 },
        { 1, 0, 1e-6, 2.0 }, { 1, 1, 1e-6, 2.4 }, { 1, 2, 1e-6, 2.0 }, { 1, 3, 1e-6, 2.8 },
        { 1, 0, 1e-9, 4.6 }, { 1, 1, 1e-9, 6.0 }, { 1, 2, 1e-9, 4.3 }, { 1, 3, 1e-9, 6.2 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const problem *pb = &problems[cases[k].problem];
        int f = cases[k].form;
        engine_result er = run_engine(pb->sys, pb->y0, pb->y0 + pb->sys->n_q, pb->ref,
                                      pb->t_end, f, cases[k].tol);
        print_run(pb, f, cases[k].tol, &er);
        CHECK(er.ok, "%s %s at %g ran", pb->name, forms[f][0], cases[k].tol);
        CHECK(er.scd_q >= cases[k].floor, "%s %s at %g: scd(q) %.2f < %.2f", pb->name,
              forms[f][0], cases[k].tol, er.scd_q, cases[k].floor);
        double drift_bound = f >= 2 ? 1.01e-10 : 30.0 * cases[k].tol;
        CHECK(er.st.max_constraint_violation <= drift_bound,
              "%s %s at %g: max |Phi| %.3g > %.3g", pb->name, forms[f][0], cases[k].tol,
              er.st.max_constraint_violation, drift_bound);
    }
    check_radau();
    return CHECK_DONE();
}
