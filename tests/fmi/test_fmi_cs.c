/*
** FMUs for Co-Simulation (the Reference FMUs of ../shared/fmus, FMI 2.0
** and 3.0, through their <CoSimulation> interface; src/fmi/cosim.c):
** stepped at the communication step of their <DefaultExperiment>, outputs
** held between the points, checked against
**   - their reference results (extra/.../<Model>_out.csv, made by fmusim
**     through the same fixed-step solver the FMUs' Co-Simulation uses, so
**     every row must agree to the digits printed);
**   - Dahlquist: forward Euler of x' = -x with the FMU's solver step 0.1
**     is x(t) = 0.9^(10 t) exactly, also at a communication step of 0.2;
**   - Stair: counter = floor(t) + 1, the FMU ending the run at t = 9.
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

static char fmu_path[1024];

static const char *fmu_file(const char *version, const char *model)
{
    snprintf(fmu_path, sizeof fmu_path, "%s/%s/%s.fmu", HYDAE_FMU_DIR, version, model);
    return fmu_path;
}

static hydae_model *open_cs(const char *version, const char *model, hy_fmu **fmu)
{
    char err[1024];
    hydae_model *m = hy_fmu_open_model_as(fmu_file(version, model), HY_FMU_CO_SIMULATION, fmu,
                                          err, sizeof err);
    CHECK(m != NULL, "%s %s: %s", version, model, err);
    CHECK(m == NULL || (hy_fmu_is_cosim(*fmu) && hydae_model_check(m) == 0),
          "%s %s: not a Co-Simulation model: %s", version, model, hydae_model_errmsg(m));
    return m;
}

/* Every reference row against the run's row at that time (the last one:
** the value after the communication point): the largest difference. */
static double worst_against_reference(const char *version, const char *model,
                                      const hydae_model *m, const test_rows *rows, int *n_matched,
                                      int *n_ref)
{
    ref_csv ref;
    *n_matched = *n_ref = 0;
    if (read_reference(fmu_file(version, model), model, &ref))
        return INFINITY;
    double worst = 0;
    *n_ref = ref.n_rows;
    for (int i = 0; i < ref.n_rows; i++) {
        int row = row_at(rows, ref.v[(size_t)i * (size_t)ref.n_cols]);
        if (row < 0)
            continue;
        (*n_matched)++;
        for (int c = 1; c < ref.n_cols; c++) {
            int col = test_column(m, ref.names[c]);
            double want = ref.v[(size_t)i * (size_t)ref.n_cols + (size_t)c];
            /* The reference prints 16 significant digits or fewer. */
            double diff = col < 0 ? NAN : fabs(test_value(rows, row, col) - want);
            worst = test_worse(worst, diff / fmax(1.0, fabs(want)));
        }
    }
    free(ref.v);
    return worst;
}

static void check_model(const char *version, const char *model)
{
    hy_fmu *fmu;
    hydae_model *m = open_cs(version, model, &fmu);
    if (!m)
        return;
    const hy_fmi_description *d = hy_fmu_description(fmu);
    test_rows rows;
    int status = test_run(m, NULL, d->stop_time, d->step_size, 1e-6, 1e-8, &rows);
    int stair = strcmp(model, "Stair") == 0;
    CHECK(status == 0, "%s %s: run %d: %s", model, version, status, hy_fmu_errmsg(fmu));
    int n_matched, n_ref;
    double worst = worst_against_reference(version, model, m, &rows, &n_matched, &n_ref);
    printf("%s %s (Co-Simulation, h = %g): %d of %d reference rows, max relative difference "
           "%.3g\n", model, version, d->step_size, n_matched, n_ref, worst);
    CHECK(n_ref > 10 && n_matched == n_ref && worst <= 1e-12, "%s %s: %d of %d rows, %.3g from "
          "the reference", model, version, n_matched, n_ref, worst);
    if (stair) {
        int counter = test_column(m, "counter"), last = rows.n_rows - 1, n_wrong = 0;
        for (int i = 0; i < rows.n_rows && counter >= 0; i++)
            n_wrong += rows.kind[i] != HYDAE_ROW_EVENT_LEFT
                       && test_value(&rows, i, counter) != floor(rows.t[i] + 1e-9) + 1;
        CHECK(hy_fmu_terminated(fmu) && last > 0 && rows.t[last] == 9.0 && n_wrong == 0
                  && test_value(&rows, last, counter) == 10.0,
              "Stair %s: ends at t = %g, %d rows off", version, last > 0 ? rows.t[last] : NAN,
              n_wrong);
    }
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* x(t) = 0.9^(10 t) at every communication point, with the step chosen
** (two solver steps per point at h = 0.2). */
static void check_dahlquist_step(const char *version, double h)
{
    hy_fmu *fmu;
    hydae_model *m = open_cs(version, "Dahlquist", &fmu);
    if (!m)
        return;
    CHECK(hy_fmu_set_communication_step(fmu, h) == 0
              && hy_fmu_set_communication_step(fmu, -1.0) == -1,
          "communication step %g", h);
    test_rows rows;
    int status = test_run(m, NULL, 4.0, h, 1e-6, 1e-8, &rows);
    CHECK(status == 0, "Dahlquist %s, h = %g: %s", version, h, hy_fmu_errmsg(fmu));
    int x = test_column(m, "x"), n_points = 0;
    double worst = 0;
    for (int i = 0; i < rows.n_rows && x >= 0; i++) {
        if (rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        n_points++;
        worst = test_worse(worst, fabs(test_value(&rows, i, x) - pow(0.9, 10.0 * rows.t[i])));
    }
    printf("Dahlquist %s (Co-Simulation, h = %g): %d points, max |x - 0.9^(10 t)| = %.3g\n",
           version, h, n_points, worst);
    CHECK(n_points == (int)lround(4.0 / h) && worst < 1e-14, "Dahlquist %s, h = %g: %d points, "
          "%.3g from 0.9^(10 t)", version, h, n_points, worst);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* An FMU with both interfaces imports Model Exchange unless asked. */
static void check_model_exchange_chosen(void)
{
    char err[1024] = "";
    hy_fmu *fmu = NULL;
    hydae_model *m = hy_fmu_open_model(fmu_file("2.0", "Dahlquist"), &fmu, err, sizeof err);
    CHECK(m && !hy_fmu_is_cosim(fmu), "Model Exchange by default: %s", err);
    hydae_model_free(m);
}

int main(void)
{
    struct stat st;
    if (stat(fmu_file("2.0", "Dahlquist"), &st) != 0) {
        printf("no test FMUs in %s: skipped\n", HYDAE_FMU_DIR);
        return 77;
    }
    static const char *const versions[] = { "2.0", "3.0" };
    static const char *const models[] = { "Dahlquist", "BouncingBall", "VanDerPol", "Stair" };
    for (int v = 0; v < 2; v++) {
        for (int k = 0; k < 4; k++)
            check_model(versions[v], models[k]);
        check_dahlquist_step(versions[v], 0.2);
    }
    check_model_exchange_chosen();
    return CHECK_DONE();
}
