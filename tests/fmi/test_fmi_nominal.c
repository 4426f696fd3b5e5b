/*
** Nominal values that change at an event (FMI 2.0.4 section 3.2.2):
** tests/fmi/nominal_fmu.c, x' = -x, x(0) = 1e-5, reports
** nominalsOfContinuousStatesChanged at its time event t = 1 and gives x
** the nominal value 1e-6 from then on. With rtol = 1e-6, atol = 1e-3 the
** absolute tolerance decides the steps: atol * nominal is 1e-3 before
** t = 1 and 1e-9 after. Against the closed form from the event on,
** x = x(1) exp(1 - t) with x(1) the right limit there:
**   - fmi2GetNominalsOfContinuousStates was called once (the FMU's own
**     count, an output), and not at all when the FMU (parameter change =
**     0) reports no change;
**   - up to the event the two runs are the same, bit for bit;
**   - after t = 1 the error is below 1e-8 (ten times the tighter atol),
**     the run without the change errs by ten times more and takes fewer
**     steps;
**   - two sims of the model on two threads (change 1 and 0) give the same
**     rows as the two runs one after the other.
** The same for the FMU run as a whole model (RK45) and as a component of
** a model file (`Fmu f(...)`, DSTIFF: its mode is a residual).
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "check.h"
#include "fmi/fmu.h"
#include "rows.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

static const char description[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"Nominal\" guid=\"{nominal}\">\n"
    "  <ModelExchange modelIdentifier=\"Nominal\"/>\n"
    "  <DefaultExperiment startTime=\"0\" stopTime=\"4\"/>\n"
    "  <ModelVariables>\n"
    "    <ScalarVariable name=\"x\" valueReference=\"0\" causality=\"output\" "
    "initial=\"exact\"><Real start=\"1e-5\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"der(x)\" valueReference=\"1\"><Real derivative=\"1\"/>"
    "</ScalarVariable>\n"
    "    <ScalarVariable name=\"change\" valueReference=\"2\" causality=\"parameter\" "
    "variability=\"fixed\"><Real start=\"1\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"n_nominals\" valueReference=\"3\" causality=\"output\" "
    "variability=\"discrete\" initial=\"calculated\"><Real/></ScalarVariable>\n"
    "    <ScalarVariable name=\"nominal\" valueReference=\"4\" causality=\"parameter\" "
    "variability=\"fixed\"><Real start=\"1e-6\"/></ScalarVariable>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure>\n"
    "    <Outputs><Unknown index=\"1\"/><Unknown index=\"4\"/></Outputs>\n"
    "    <Derivatives><Unknown index=\"2\"/></Derivatives>\n"
    "  </ModelStructure>\n"
    "</fmiModelDescription>\n";

/* The FMU at path: the description and NOMINAL_FMU_SO. 0 or -1. */
static int pack(const char *path)
{
    int code;
    zip_t *zip = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!zip)
        return -1;
    zip_source_t *xml = zip_source_buffer(zip, description, sizeof description - 1, 0);
    zip_source_t *so = zip_source_file(zip, NOMINAL_FMU_SO, 0, -1);
    int failed = !xml || zip_file_add(zip, "modelDescription.xml", xml, 0) < 0;
    if (failed)
        zip_source_free(xml);
    failed = failed || !so || zip_file_add(zip, "binaries/linux64/Nominal.so", so, 0) < 0;
    if (failed) {
        zip_source_free(so);
        zip_discard(zip);
        return -1;
    }
    return zip_close(zip) == 0 ? 0 : -1;
}

typedef struct run {
    hydae_sim *sim;
    double change;
    test_rows rows;
    int status;
} run;

static int setup(run *r, hydae_model *m, const char *integrator, const char *change_name,
                 double change)
{
    memset(r, 0, sizeof *r);
    r->change = change;
    test_rows_init(&r->rows, m);
    r->sim = hydae_sim_create(m, &r->status);
    if (!r->sim)
        return -1;
    r->status = hydae_sim_set_time(r->sim, 0.0, 4.0);
    if (!r->status)
        r->status = hydae_sim_set_tolerances(r->sim, 1e-6, 1e-3);
    if (!r->status && integrator)
        r->status = hydae_sim_set_integrator(r->sim, integrator);
    if (!r->status)
        r->status = hydae_sim_set_output_steps(r->sim, 1);
    if (!r->status)
        r->status = hydae_sim_add_row_sink(r->sim, test_rows_sink, &r->rows);
    if (!r->status)
        r->status = hydae_sim_set_param(r->sim, change_name, change);
    return r->status;
}

static void *execute(void *arg)
{
    run *r = arg;
    r->status = hydae_sim_run(r->sim);
    if (r->status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(r->sim));
    return NULL;
}

/* Largest |x - x(1) exp(1 - t)| over the rows after t = 1 (x(1) the
** right limit at the event), their count. */
static double error_after_event(const run *r, int x, int *n_rows)
{
    double worst = 0.0, x1 = NAN;
    *n_rows = 0;
    for (int i = 0; i < r->rows.n_rows; i++) {
        if (r->rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && r->rows.t[i] == 1.0)
            x1 = test_value(&r->rows, i, x);
        if (!(r->rows.t[i] > 1.0))
            continue;
        (*n_rows)++;
        worst = fmax(worst, fabs(test_value(&r->rows, i, x) - x1 * exp(1.0 - r->rows.t[i])));
    }
    return isnan(x1) ? INFINITY : worst;
}

/* Rows [0, n) of a and b the same, bit for bit (n < 0: all, and as many). */
static int same_rows(const run *a, const run *b, int n)
{
    if (n < 0 && a->rows.n_rows != b->rows.n_rows)
        return 0;
    n = n < 0 ? a->rows.n_rows : n;
    if (n > a->rows.n_rows || n > b->rows.n_rows)
        return 0;
    size_t width = (size_t)a->rows.n_columns;
    return memcmp(a->rows.t, b->rows.t, sizeof(double) * (size_t)n) == 0
           && memcmp(a->rows.values, b->rows.values, sizeof(double) * width * (size_t)n) == 0;
}

/* Rows up to the left limit of the event. */
static int rows_before_event(const run *r)
{
    int i = 0;
    while (i < r->rows.n_rows && r->rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
        i++;
    return i;
}

/* The model m with the FMU's columns and parameter under prefix ("" or
** "f."), by integrator (NULL: the default). */
static void check_runs(hydae_model *m, const char *prefix, const char *integrator)
{
    char x_name[64], count_name[64], change[64];
    snprintf(x_name, sizeof x_name, "%sx", prefix);
    snprintf(count_name, sizeof count_name, "%sn_nominals", prefix);
    snprintf(change, sizeof change, "%schange", prefix);
    int x = test_column(m, x_name), count = test_column(m, count_name);
    CHECK(x >= 0 && count >= 0, "columns %s and %s", x_name, count_name);
    run changed, kept, par_changed, par_kept;
    int ok = x >= 0 && count >= 0 && !setup(&changed, m, integrator, change, 1.0)
             && !setup(&kept, m, integrator, change, 0.0)
             && !setup(&par_changed, m, integrator, change, 1.0)
             && !setup(&par_kept, m, integrator, change, 0.0);
    CHECK(ok, "sims (%s)", prefix);
    if (!ok)
        return;
    execute(&changed);
    execute(&kept);
    ok = changed.status == 0 && kept.status == 0 && changed.rows.n_rows > 0
         && kept.rows.n_rows > 0;
    CHECK(ok, "runs: %d %d", changed.status, kept.status);
    if (ok) {
        int last_c = changed.rows.n_rows - 1, last_k = kept.rows.n_rows - 1;
        double calls = test_value(&changed.rows, last_c, count);
        double calls_kept = test_value(&kept.rows, last_k, count);
        CHECK(calls == 1.0 && calls_kept == 0.0,
              "fmi2GetNominalsOfContinuousStates called %g times (%g without the change)", calls,
              calls_kept);
        int n_before = rows_before_event(&changed);
        CHECK(n_before >= 2 && n_before == rows_before_event(&kept)
                  && same_rows(&changed, &kept, n_before),
              "the runs differ before the event (%d rows)", n_before);
        int n_changed, n_kept;
        double err_changed = error_after_event(&changed, x, &n_changed);
        double err_kept = error_after_event(&kept, x, &n_kept);
        printf("%s: after t = 1: nominal 1e-6 from the FMU: %d steps, max error %.3g; "
               "nominal 1: %d steps, max error %.3g\n", prefix[0] ? "component" : "model",
               n_changed, err_changed, n_kept, err_kept);
        CHECK(err_changed < 1e-8, "error with atol 1e-9 after t = 1: %.3g", err_changed);
        CHECK(err_kept > 10.0 * err_changed, "the run with nominal 1 is as accurate (%.3g, %.3g)",
              err_kept, err_changed);
        CHECK(n_changed > 2 * n_kept, "steps after t = 1: %d with nominal 1e-6, %d with 1",
              n_changed, n_kept);
        pthread_t th[2];
        int started0 = pthread_create(&th[0], NULL, execute, &par_changed) == 0;
        int started1 = pthread_create(&th[1], NULL, execute, &par_kept) == 0;
        if (started0)
            pthread_join(th[0], NULL);
        if (started1)
            pthread_join(th[1], NULL);
        CHECK(started0 && started1 && par_changed.status == 0 && par_kept.status == 0,
              "threaded runs");
        CHECK(same_rows(&par_changed, &changed, -1) && same_rows(&par_kept, &kept, -1),
              "a sim on another thread sees the other's nominal value");
    }
    run *runs[] = { &changed, &kept, &par_changed, &par_kept };
    for (int i = 0; i < 4; i++) {
        hydae_sim_free(runs[i]->sim);
        test_rows_free(&runs[i]->rows);
    }
}

int main(void)
{
    char work[] = "/tmp/hydae_nominal_XXXXXX", path[1200], err[1024];
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/Nominal.fmu", work);
    CHECK(pack(path) == 0, "packing %s", path);
    hy_fmu *fmu = NULL;
    hydae_model *m = hy_fmu_open_model(path, &fmu, err, sizeof err);
    CHECK(m != NULL && hydae_model_check(m) == 0, "open: %s", m ? hydae_model_errmsg(m) : err);
    if (m)
        check_runs(m, "", "RK45");
    hydae_model_free(m);
    /* The FMU as a component of a model file beside it. */
    char model[1200], *diagnostics = NULL;
    snprintf(model, sizeof model, "%s/comp.hym", work);
    FILE *out = fopen(model, "w");
    int written = out && fputs("model comp\n  Fmu f(file = \"Nominal.fmu\");\nend comp;\n",
                               out) >= 0;
    written = out && !fclose(out) && written;
    int n_errors = 0;
    m = written ? hydae_model_load_file(model, &diagnostics, &n_errors) : NULL;
    CHECK(m != NULL, "comp.hym: %s", diagnostics ? diagnostics : "not written");
    if (m)
        check_runs(m, "f.", NULL);
    hydae_model_free(m);
    hydae_string_free(diagnostics);
    unlink(model);
    unlink(path);
    rmdir(work);
    return CHECK_DONE();
}
