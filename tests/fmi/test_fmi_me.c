/*
** FMUs for Model Exchange (the Reference FMUs of ../shared/fmus, FMI 2.0
** and 3.0) run through hydae's C API (src/fmi/model.c), checked against
** closed forms and independent computations:
**   Dahlquist    x' = -k x: x = exp(-k t);
**   VanDerPol    against the same equations and their Jacobian written as a
**                hydae mode here (the FMU's Jacobian is its directional
**                derivatives);
**   BouncingBall impact times of the closed form (g = 9.81, e = 0.7,
**                h0 = 1; at rest once e v_impact < v_min = 0.1);
**   Stair        time events exactly at t = 1, 2, ...: counter = floor(t) + 1,
**                the FMU ending the run at t = 9 (its right limit, 10, the
**                last row); every row of its reference;
**   Feedthrough  every numeric input, set as a parameter, reaches its output;
**   Resource     y = 'a' = 97, the first byte of resources/y.txt.
** And against the reference results (extra/.../<Model>_out.csv, fmusim's
** forward Euler): hydae's run is no farther from the reference than the
** exact (or independent) solution is, plus the run's tolerance.
** Skipped (77) when the FMUs are absent.
*/
#include "check.h"
#include "rows.h"
#include "fmi/fmu.h"
#include "fmi/reference_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RTOL 1e-10
#define ATOL 1e-12

static char fmu_path[1024];

static const char *fmu_file(const char *version, const char *model)
{
    snprintf(fmu_path, sizeof fmu_path, "%s/%s/%s.fmu", HYDAE_FMU_DIR, version, model);
    return fmu_path;
}

static hydae_model *open_fmu(const char *version, const char *model, hy_fmu **fmu)
{
    char err[1024];
    hydae_model *m = hy_fmu_open_model(fmu_file(version, model), fmu, err, sizeof err);
    CHECK(m != NULL, "%s %s: %s", version, model, err);
    /* Checked, so that its result columns are known (rows.h). */
    CHECK(m == NULL || hydae_model_check(m) == 0, "%s %s: %s", version, model,
          hydae_model_errmsg(m));
    return m;
}

typedef double (*exact_fn)(double t, int var, void *user);

/* max |hydae - ref| and max |exact - ref| over the reference's rows, for
** the reference's columns. */
static void compare_reference(const char *what, const ref_csv *ref, const hydae_model *m,
                              const test_rows *rows, exact_fn exact, void *user, double tol)
{
    double worst_ours = 0, worst_exact = 0;
    int n_matched = 0;
    for (int i = 0; i < ref->n_rows; i++) {
        double t = ref->v[(size_t)i * (size_t)ref->n_cols];
        int row = row_at(rows, t);
        if (row < 0)
            continue;
        n_matched++;
        for (int c = 1; c < ref->n_cols; c++) {
            int col = test_column(m, ref->names[c]);
            double r = ref->v[(size_t)i * (size_t)ref->n_cols + (size_t)c];
            worst_ours = test_worse(worst_ours, col < 0 ? NAN : fabs(test_value(rows, row, col) - r));
            worst_exact = test_worse(worst_exact, fabs(exact(t, c - 1, user) - r));
        }
    }
    CHECK(n_matched == ref->n_rows, "%s: %d of %d reference times in the results", what,
          n_matched, ref->n_rows);
    printf("%s: max |hydae - reference| = %.3g, max |exact - reference| = %.3g\n", what,
           worst_ours, worst_exact);
    CHECK(worst_ours <= worst_exact + tol, "%s: %.3g from the reference, the exact solution "
          "%.3g", what, worst_ours, worst_exact);
}

/* The reference result of version/model against the run, as above. */
static void check_reference(const char *version, const char *model, const hydae_model *m,
                            const test_rows *rows, exact_fn exact, void *user, double tol)
{
    ref_csv ref;
    CHECK(read_reference(fmu_file(version, model), model, &ref) == 0, "no %s %s reference", version, model);
    if (ref.n_rows > 0) {
        char what[64];
        snprintf(what, sizeof what, "%s %s", model, version);
        compare_reference(what, &ref, m, rows, exact, user, tol);
    }
    free(ref.v);
}

/* ---- Dahlquist ---- */
static double dahlquist_exact(double t, int var, void *user)
{
    (void)var;
    return exp(-*(double *)user * t);
}

static void check_dahlquist(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "Dahlquist", &fmu);
    if (!m)
        return;
    double k = 1.0; /* the description's start of k */
    test_rows rows;
    int status = test_run(m, NULL, 10.0, 0.1, RTOL, ATOL, &rows);
    CHECK(status == 0, "Dahlquist %s: run %d: %s", version, status, hy_fmu_errmsg(fmu));
    int x = test_column(m, "x");
    double worst = 0;
    for (int i = 0; i < rows.n_rows && x >= 0; i++)
        worst = test_worse(worst, fabs(test_value(&rows, i, x) - exp(-k * rows.t[i])));
    printf("Dahlquist %s: max |x - exp(-t)| = %.3g over %d rows\n", version, worst, rows.n_rows);
    CHECK(x >= 0 && rows.n_rows > 100 && worst < 1e-8, "Dahlquist %s: error %.3g", version,
          worst);
    check_reference(version, "Dahlquist", m, &rows, dahlquist_exact, &k, 1e-8);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* ---- VanDerPol, against a hand-written mode ---- */
static int vdp_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    double mu = *(const double *)user;
    ydot[0] = y[1];
    ydot[1] = mu * (1 - y[0] * y[0]) * y[1] - y[0];
    return 0;
}

/* df/dy, column-major: the FMU's directional derivatives must give it. */
static int vdp_jacobian(double t, double cj, const double *y, const double *yp, const double *p,
                        double *jac, void *user)
{
    (void)t;
    (void)cj;
    (void)yp;
    (void)p;
    double mu = *(const double *)user;
    jac[0] = 0.0;
    jac[1] = -2.0 * mu * y[0] * y[1] - 1.0;
    jac[2] = 1.0;
    jac[3] = mu * (1 - y[0] * y[0]);
    return 0;
}

static hydae_model *vdp_model(double *mu)
{
    hydae_model *m = hydae_model_create("vdp");
    if (!m)
        return NULL;
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "osc");
    if (hydae_mode_add_var(mode, "x0", HYDAE_DIFFERENTIAL, 2.0) < 0
        || hydae_mode_add_var(mode, "x1", HYDAE_DIFFERENTIAL, 0.0) < 0
        || hydae_mode_set_rhs(mode, vdp_rhs, mu) || hydae_mode_set_jacobian(mode, vdp_jacobian)
        || hydae_model_check(m)) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

typedef struct vdp_exact {
    const hydae_model *m;
    const test_rows *rows;
} vdp_exact;

static double vdp_independent(double t, int var, void *user)
{
    const vdp_exact *e = user;
    int row = row_at(e->rows, t);
    return row < 0 ? NAN : test_value(e->rows, row, test_column(e->m, var == 0 ? "x0" : "x1"));
}

static void check_vanderpol(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "VanDerPol", &fmu);
    double mu = 1.0; /* the description's start of mu */
    hydae_model *hand = vdp_model(&mu);
    if (!m || !hand) {
        hydae_model_free(m);
        hydae_model_free(hand);
        return;
    }
    test_rows rows, hand_rows;
    hydae_stats stats, hand_stats;
    int status = test_run_stats(m, NULL, 20.0, 0.01, RTOL, ATOL, &rows, &stats);
    CHECK(status == 0, "VanDerPol %s: run %d: %s", version, status, hy_fmu_errmsg(fmu));
    status = test_run_stats(hand, NULL, 20.0, 0.01, RTOL, ATOL, &hand_rows, &hand_stats);
    /* The FMU's Jacobian (directional derivatives) is the analytic one: no
    ** finite differences, the same evaluations as the hand-written model. */
    CHECK(stats.n_jac_evals > 0 && stats.n_res_evals == hand_stats.n_res_evals,
          "VanDerPol %s: %ld residual evaluations, the hand-written model %ld", version,
          stats.n_res_evals, hand_stats.n_res_evals);
    CHECK(status == 0 && rows.n_rows == hand_rows.n_rows, "hand-written VanDerPol: %d rows, %d",
          hand_rows.n_rows, rows.n_rows);
    double worst = 0;
    for (int i = 0; i < rows.n_rows && i < hand_rows.n_rows; i++)
        for (int v = 0; v < 2; v++) {
            const char *name = v ? "x1" : "x0";
            worst = test_worse(worst, fabs(test_value(&rows, i, test_column(m, name))
                                           - test_value(&hand_rows, i, test_column(hand, name))));
        }
    printf("VanDerPol %s: max |FMU - hand-written| = %.3g\n", version, worst);
    CHECK(worst < 1e-7, "VanDerPol %s: %.3g from the hand-written model", version, worst);
    vdp_exact e = { hand, &hand_rows };
    check_reference(version, "VanDerPol", m, &rows, vdp_independent, &e, 1e-7);
    test_rows_free(&rows);
    test_rows_free(&hand_rows);
    hydae_model_free(m);
    hydae_model_free(hand);
}

/* ---- BouncingBall: closed form ---- */
enum { MAX_IMPACTS = 64 };
typedef struct ball {
    int n_impacts;         /* the last one leaves the ball at rest */
    double t[MAX_IMPACTS]; /* impact times */
    double v[MAX_IMPACTS]; /* upward velocity after each (0: at rest) */
} ball;

/* Free fall from h0 = 1 under g = 9.81, e = 0.7, at rest once the rebound
** e v_impact is below v_min = 0.1 (the model's description). */
static void ball_closed_form(ball *b)
{
    const double g = 9.81, e = 0.7, v_min = 0.1;
    double t = sqrt(2.0 / g), v_in = g * t;
    b->n_impacts = 0;
    while (b->n_impacts < MAX_IMPACTS) {
        double v_out = e * v_in < v_min ? 0.0 : e * v_in;
        b->t[b->n_impacts] = t;
        b->v[b->n_impacts++] = v_out;
        if (v_out == 0.0)
            break;
        t += 2.0 * v_out / g;
        v_in = v_out;
    }
}

static double ball_exact(double t, int var, void *user)
{
    const ball *b = user;
    const double g = 9.81;
    if (t < b->t[0])
        return var == 0 ? 1.0 - g * t * t / 2 : -g * t;
    int k = 0;
    while (k + 1 < b->n_impacts && t >= b->t[k + 1])
        k++;
    double s = t - b->t[k], v0 = b->v[k];
    if (v0 == 0.0)
        return 0.0;
    return var == 0 ? v0 * s - g * s * s / 2 : v0 - g * s;
}

static void check_bouncing_ball(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "BouncingBall", &fmu);
    if (!m)
        return;
    ball b;
    ball_closed_form(&b);
    test_rows rows;
    int status = test_run(m, NULL, 3.0, 0.01, RTOL, ATOL, &rows);
    CHECK(status == 0, "BouncingBall %s: run %d: %s", version, status, hy_fmu_errmsg(fmu));
    int n_events = 0;
    double worst = 0;
    for (int i = 0; i < rows.n_rows; i++) {
        if (rows.kind[i] != HYDAE_ROW_EVENT_LEFT)
            continue;
        if (n_events < b.n_impacts)
            worst = test_worse(worst, fabs(rows.t[i] - b.t[n_events]));
        n_events++;
    }
    printf("BouncingBall %s: %d impacts (closed form %d), max |t - t_closed| = %.3g\n", version,
           n_events, b.n_impacts, worst);
    CHECK(n_events == b.n_impacts, "BouncingBall %s: %d impacts, want %d", version, n_events,
          b.n_impacts);
    CHECK(worst < 1e-9, "BouncingBall %s: impact times %.3g from the closed form", version,
          worst);
    int h = test_column(m, "h"), v = test_column(m, "v");
    double rest = 0;
    for (int i = 0; i < rows.n_rows && h >= 0 && v >= 0; i++)
        if (rows.t[i] > b.t[b.n_impacts - 1] + 1e-9)
            rest = test_worse(rest, fabs(test_value(&rows, i, h)) + fabs(test_value(&rows, i, v)));
    CHECK(rest < 1e-12, "BouncingBall %s: moves after coming to rest (%.3g)", version, rest);
    check_reference(version, "BouncingBall", m, &rows, ball_exact, &b, 1e-7);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* ---- Stair: time events ---- */
static double stair_exact(double t, int var, void *user)
{
    (void)var;
    (void)user;
    return floor(t + 1e-12) + 1; /* the right limit at an integer */
}

static void check_stair(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "Stair", &fmu);
    if (!m)
        return;
    test_rows rows;
    int status = test_run(m, NULL, 10.0, 0.2, RTOL, ATOL, &rows);
    CHECK(status == 0 && hy_fmu_terminated(fmu), "Stair %s: the FMU's terminateSimulation at "
          "t = 9 should end the run successfully (status %d)", version, status);
    int counter = test_column(m, "counter"), n_events = 0, n_wrong = 0;
    for (int i = 0; i < rows.n_rows && counter >= 0; i++) {
        double t = rows.t[i], c = test_value(&rows, i, counter);
        if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT) {
            n_events++;
            /* Exactly at the integer, with the old count on the left. */
            n_wrong += t != (double)n_events || c != n_events;
        } else if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            n_wrong += c != n_events + 1;
        } else {
            n_wrong += c != floor(t + 1e-12) + 1;
        }
    }
    /* The run ends at t = 9 with the right limit, counter = 10 (and the
    ** grid row of t = 9 after it). */
    int last = rows.n_rows - 1, right = last;
    while (right > 0 && rows.kind[right] != HYDAE_ROW_EVENT_RIGHT)
        right--;
    int ends_right = right > 0 && rows.t[right] == 9.0 && rows.t[last] == 9.0
                     && test_value(&rows, right, counter) == 10.0
                     && test_value(&rows, last, counter) == 10.0;
    printf("Stair %s: %d time events, %d rows off, last row t = %.17g\n", version, n_events,
           n_wrong, last >= 0 ? rows.t[last] : NAN);
    CHECK(n_events == 9 && n_wrong == 0 && ends_right, "Stair %s: %d events, %d rows wrong, "
          "ends with the right limit at 9: %d", version, n_events, n_wrong, ends_right);
    /* Every reference row, t = 9 (counter 10) included, matches exactly. */
    check_reference(version, "Stair", m, &rows, stair_exact, NULL, 0.0);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* ---- Feedthrough: every numeric input type held at a value ---- */
typedef struct fed_input {
    char output[128];
    double value;
} fed_input;

/* A value for each numeric input (distinct, fitting its type), set as the
** parameter of the same name; the output X_output must carry X_input's. */
static int feed_inputs(hydae_model *m, const hy_fmi_description *d, fed_input *fed, int cap)
{
    int n = 0;
    for (int i = 0; i < d->n_vars && n < cap; i++) {
        const hy_fmi_var *v = &d->vars[i];
        const char *suffix = strstr(v->name, "_input");
        if (v->causality != HY_FMI_INPUT || !hy_fmi_type_is_numeric(v->type) || v->is_array
            || !suffix)
            continue;
        double value = v->type == HY_FMI_BOOLEAN ? 1.0
                       : v->type == HY_FMI_ENUMERATION ? 2.0
                       : v->type == HY_FMI_FLOAT64 || v->type == HY_FMI_FLOAT32 ? 0.5 + n
                       : (v->type - HY_FMI_INT8) % 2 == 0 ? -(n + 1.0) : n + 1.0;
        CHECK(hydae_model_set_param(m, v->name, value) == 0, "input %s not settable: %s",
              v->name, hydae_model_errmsg(m));
        snprintf(fed[n].output, sizeof fed[n].output, "%.*s_output", (int)(suffix - v->name),
                 v->name);
        fed[n++].value = value;
    }
    return n;
}

static void check_feedthrough(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "Feedthrough", &fmu);
    if (!m)
        return;
    fed_input fed[32];
    int n_fed = feed_inputs(m, hy_fmu_description(fmu), fed, 32);
    test_rows rows;
    int status = test_run(m, NULL, 1.0, 0.1, RTOL, ATOL, &rows);
    CHECK(status == 0, "Feedthrough %s: run %d: %s", version, status, hy_fmu_errmsg(fmu));
    int n_wrong = 0;
    for (int k = 0; k < n_fed; k++) {
        int col = test_column(m, fed[k].output);
        for (int i = 0; i < rows.n_rows; i++)
            n_wrong += col < 0 || test_value(&rows, i, col) != fed[k].value;
    }
    printf("Feedthrough %s: %d inputs passed through\n", version, n_fed);
    /* 2.0: Float64 continuous and discrete, Int32, Boolean, Enumeration;
    ** 3.0 adds Float32 (both) and the eight integer types. */
    CHECK(n_fed == (version[0] == '2' ? 5 : 14) && rows.n_rows > 10 && n_wrong == 0,
          "Feedthrough %s: %d inputs, %d values wrong", version, n_fed, n_wrong);
    test_rows_free(&rows);
    hydae_model_free(m);
}

static void check_resource(void)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu("2.0", "Resource", &fmu);
    if (!m)
        return;
    test_rows rows;
    int status = test_run(m, NULL, 1.0, 0.1, RTOL, ATOL, &rows);
    CHECK(status == 0, "Resource: run %d: %s", status, hy_fmu_errmsg(fmu));
    int y = test_column(m, "y");
    CHECK(y >= 0 && rows.n_rows > 0 && test_value(&rows, 0, y) == 97.0,
          "Resource: y = %g, want 97 ('a')", y >= 0 && rows.n_rows ? test_value(&rows, 0, y) : NAN);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* Two runs of one model: a fresh instance each, the same results; a
** parameter set between them reaches the FMU. */
static void check_rerun(const char *version)
{
    hy_fmu *fmu;
    hydae_model *m = open_fmu(version, "Dahlquist", &fmu);
    if (!m)
        return;
    test_rows a, b, c;
    int s1 = test_run(m, NULL, 2.0, 0.5, 1e-8, 1e-10, &a);
    int s2 = test_run(m, NULL, 2.0, 0.5, 1e-8, 1e-10, &b);
    int x = test_column(m, "x");
    CHECK(s1 == 0 && s2 == 0 && a.n_rows == b.n_rows && x >= 0, "Dahlquist %s: reruns", version);
    for (int i = 0; i < a.n_rows && i < b.n_rows && x >= 0; i++)
        CHECK(test_value(&a, i, x) == test_value(&b, i, x), "rerun row %d differs", i);
    CHECK(hydae_model_set_param(m, "k", 2.0) == 0, "k not settable");
    int s3 = test_run(m, NULL, 2.0, 0.5, 1e-8, 1e-10, &c);
    int last = c.n_rows - 1;
    CHECK(s3 == 0 && x >= 0 && last > 0 && fabs(test_value(&c, last, x) - exp(-4.0)) < 1e-6,
          "Dahlquist %s with k = 2: x(2) = %g, want exp(-4)", version,
          last > 0 && x >= 0 ? test_value(&c, last, x) : NAN);
    test_rows_free(&a);
    test_rows_free(&b);
    test_rows_free(&c);
    hydae_model_free(m);
}

int main(void)
{
    struct stat st;
    if (stat(fmu_file("2.0", "BouncingBall"), &st) != 0) {
        printf("no test FMUs in %s: skipped\n", HYDAE_FMU_DIR);
        return 77;
    }
    static const char *const versions[] = { "2.0", "3.0" };
    for (int v = 0; v < 2; v++) {
        check_dahlquist(versions[v]);
        check_vanderpol(versions[v]);
        check_bouncing_ball(versions[v]);
        check_stair(versions[v]);
        check_feedthrough(versions[v]);
        check_rerun(versions[v]);
    }
    check_resource();
    return CHECK_DONE();
}
