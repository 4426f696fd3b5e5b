/*
** Nominal values that change at an event (FMI 2.0.4 section 3.2.2):
** tests/fmi/nominal_fmu.c, x' = -x, x(0) = 1e-5, reports
** nominalsOfContinuousStatesChanged at its time event t = 1 and gives x
** the nominal value 1e-6 from then on (when its parameter change is 1;
** with 0 it reports no change). The runs and checks of
** tests/nominal_runs.h (the same rows up to the event; after it the closed
** form x(1) exp(1 - t) within 1e-8 and more steps than the run that keeps
** the nominal; two sims on two threads do not share it), and
** fmi2GetNominalsOfContinuousStates was called once (the FMU's own count,
** an output), not at all without the change. For the FMU run as a whole
** model (RK45) and as a component of a model file (`Fmu f(...)`, DSTIFF:
** its mode is a residual).
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "check.h"
#include "fmi/fmu.h"
#include "rows.h"
#include "nominal_runs.h"

#include <math.h>
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

/* The model m with the FMU's columns and parameter under prefix ("" or
** "f."), by integrator (NULL: the default); what names it. */
static void check_runs(hydae_model *m, const char *prefix, const char *integrator,
                       const char *what)
{
    char x_name[64], count_name[64], change[64];
    snprintf(x_name, sizeof x_name, "%sx", prefix);
    snprintf(count_name, sizeof count_name, "%sn_nominals", prefix);
    snprintf(change, sizeof change, "%schange", prefix);
    int x = test_column(m, x_name), count = test_column(m, count_name);
    CHECK(x >= 0 && count >= 0, "columns %s and %s", x_name, count_name);
    nominal_runs r;
    int ok = x >= 0 && count >= 0 && nominal_runs_start(&r, m, integrator, change) == 0;
    CHECK(ok, "%s: runs", what);
    if (ok) {
        const test_rows *changed = &r.changed.rows, *kept = &r.kept.rows;
        double calls = test_value(changed, changed->n_rows - 1, count);
        double calls_kept = test_value(kept, kept->n_rows - 1, count);
        CHECK(calls == 1.0 && calls_kept == 0.0,
              "%s: fmi2GetNominalsOfContinuousStates called %g times (%g without the change)",
              what, calls, calls_kept);
        nominal_runs_check(&r, x, what);
    }
    if (x >= 0 && count >= 0)
        nominal_runs_free(&r);
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
        check_runs(m, "", "RK45", "model");
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
        check_runs(m, "f.", NULL, "component");
    hydae_model_free(m);
    hydae_string_free(diagnostics);
    unlink(model);
    unlink(path);
    rmdir(work);
    return CHECK_DONE();
}
