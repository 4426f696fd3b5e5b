/*
** FMI 2.0 Co-Simulation export (docs/fmi.md, "Export"): `hydae export`
** packs examples/bouncing_ball.hym and examples/string_pendulum.hym (two
** modes of 2 and 4 states); this test unpacks each FMU, reads its
** modelDescription.xml with hydae's own parser, loads the binary with
** dlopen and drives it as an FMI 2.0 master does (FMI 2.0.4 section 4.2.4:
** fmi2Instantiate with the resources' file URI, fmi2SetupExperiment,
** fmi2Enter/ExitInitializationMode, fmi2DoStep(t_k, h) at
** t_k = k h, fmi2GetReal after each step, fmi2Terminate,
** fmi2FreeInstance). Outputs at the communication points are compared with
** `hydae run` of the model file at the same output grid; the mode changes
** seen at the communication points fall in the steps that hold the
** events of that run; the bouncing ball with e set through fmi2SetReal
** rises after its first impact as the closed form says; and the errors
** (a GUID or type the binary refuses, a step that does not start where
** the FMU stands, a model file with errors at export time) are reported,
** not crashed on.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */

#include "check.h"
#include "fmi/archive.h"
#include "fmi/description.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef HYDAE_EXAMPLES_DIR
#define HYDAE_EXAMPLES_DIR "examples"
#endif

/* The FMI 2.0 types this master needs (fmi2FunctionTypes.h). */
typedef struct {
    void (*logger)(void *, const char *, int, const char *, const char *, ...);
    void *(*allocate)(size_t, size_t);
    void (*free_memory)(void *);
    void (*step_finished)(void *, int);
    void *env;
} callbacks_t;
typedef void *(*instantiate_fn)(const char *, int, const char *, const char *,
                                const callbacks_t *, int, int);
typedef int (*setup_fn)(void *, int, double, double, int, double);
typedef int (*instance_fn)(void *);
typedef void (*free_fn)(void *);
typedef int (*get_real_fn)(void *, const unsigned *, size_t, double *);
typedef int (*set_real_fn)(void *, const unsigned *, size_t, const double *);
typedef int (*get_integer_fn)(void *, const unsigned *, size_t, int *);
typedef int (*do_step_fn)(void *, double, double, int);

enum { FMI_OK = 0, FMI_ERROR = 3, CO_SIMULATION = 1, MODEL_EXCHANGE = 0 };

typedef struct master {
    void *lib;
    instantiate_fn instantiate;
    setup_fn setup;
    instance_fn enter_init, exit_init, terminate;
    free_fn free_instance;
    get_real_fn get_real;
    set_real_fn set_real;
    get_integer_fn get_integer;
    do_step_fn do_step;
} master;

/* What the logger saw. */
static int n_logged_errors, n_logged_events;
static char last_error[4096];

static void logger(void *env, const char *instance, int status, const char *category,
                   const char *message, ...)
{
    (void)env, (void)instance, (void)category;
    char text[4096];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    if (status == FMI_ERROR) {
        n_logged_errors++;
        snprintf(last_error, sizeof last_error, "%s", text);
    } else if (strncmp(text, "event at t = ", 13) == 0) {
        n_logged_events++;
    }
}

static const callbacks_t the_callbacks = { logger, calloc, free, NULL, NULL };

static int load(master *ms, const char *so)
{
    memset(ms, 0, sizeof *ms);
    ms->lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(ms->lib != NULL, "dlopen %s: %s", so, dlerror());
    if (!ms->lib)
        return -1;
    /* dlsym's void * to function pointers: POSIX allows it. */
#define RESOLVE(field, name) *(void **)&ms->field = dlsym(ms->lib, name)
    RESOLVE(instantiate, "fmi2Instantiate");
    RESOLVE(setup, "fmi2SetupExperiment");
    RESOLVE(enter_init, "fmi2EnterInitializationMode");
    RESOLVE(exit_init, "fmi2ExitInitializationMode");
    RESOLVE(terminate, "fmi2Terminate");
    RESOLVE(free_instance, "fmi2FreeInstance");
    RESOLVE(get_real, "fmi2GetReal");
    RESOLVE(set_real, "fmi2SetReal");
    RESOLVE(get_integer, "fmi2GetInteger");
    RESOLVE(do_step, "fmi2DoStep");
#undef RESOLVE
    int ok = ms->instantiate && ms->setup && ms->enter_init && ms->exit_init && ms->terminate
             && ms->free_instance && ms->get_real && ms->set_real && ms->get_integer
             && ms->do_step;
    CHECK(ok, "%s lacks an fmi2 function", so);
    /* Only the fmi2* functions are exported: none of the core's. */
    CHECK(dlsym(ms->lib, "hydae_sim_run") == NULL && dlsym(ms->lib, "hy_malloc") == NULL,
          "%s exports hydae's own functions", so);
    return ok ? 0 : -1;
}

/* A CSV of `hydae run`: the header's names and the rows. */
typedef struct csv {
    int n_cols, n_rows;
    char names[32][64];
    double *values; /* n_rows x n_cols, NaN for empty fields */
} csv;

static int read_csv(const char *path, csv *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *save = NULL;
        if (out->n_cols == 0) {
            for (char *tok = strtok_r(line, ",\n", &save); tok && out->n_cols < 32;
                 tok = strtok_r(NULL, ",\n", &save))
                snprintf(out->names[out->n_cols++], 64, "%s", tok);
            continue;
        }
        if (out->n_rows == cap) {
            cap = cap ? 2 * cap : 1024;
            out->values = realloc(out->values, sizeof(double) * (size_t)cap * (size_t)out->n_cols);
        }
        double *row = out->values + (size_t)out->n_rows * (size_t)out->n_cols;
        char *p = line;
        for (int c = 0; c < out->n_cols; c++) {
            char *end;
            row[c] = strtod(p, &end);
            if (end == p)
                row[c] = NAN;
            p = strchr(end, ',');
            p = p ? p + 1 : end;
        }
        out->n_rows++;
    }
    fclose(f);
    return out->n_cols > 1 && out->n_rows > 0 ? 0 : -1;
}

static int run_command(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The exported FMU of examples/NAME.hym, unpacked: its description parsed
** into *d, the binary loaded into *ms, the resources' URI in uri. */
static int open_export(const char *work, const char *name, char *dir, size_t dir_size,
                       hy_fmi_description *d, master *ms, char *uri, size_t uri_size)
{
    char fmu[1024], err[2048];
    snprintf(fmu, sizeof fmu, "%s/%s.fmu", work, name);
    int rc = run_command("'%s' export '%s/%s.hym' -o '%s' 2>/dev/null", HYDAE_CLI,
                         HYDAE_EXAMPLES_DIR, name, fmu);
    CHECK(rc == 0, "hydae export %s: exit %d", name, rc);
    if (rc != 0 || hy_fmi_archive_extract(fmu, dir, dir_size, err, sizeof err) != 0) {
        CHECK(0, "unpack %s: %s", fmu, err);
        return -1;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    size_t size = 0;
    char *xml = hy_fmi_read_file(path, &size);
    int parsed = xml ? hy_fmi_description_parse(xml, size, "modelDescription.xml", d, err,
                                                sizeof err) : -1;
    free(xml);
    CHECK(parsed == 0, "%s: hydae's parser refuses the description: %s", name, err);
    if (parsed)
        return -1;
    CHECK(d->fmi_major == 2 && d->cs_identifier && !d->me_identifier && d->token
              && d->token[0] == '{',
          "%s: an FMI 2.0 Co-Simulation description with a GUID", name);
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir,
             d->cs_identifier ? d->cs_identifier : "?");
    snprintf(uri, uri_size, "file://%s/resources", dir);
    return load(ms, path);
}

static int vr_of(const hy_fmi_description *d, const char *name)
{
    int i = hy_fmi_description_find(d, name);
    return i < 0 ? -1 : (int)d->vars[i].vr;
}

/* Drive the FMU at step h over [0, t_end] and compare every output with
** the run's grid rows; count the communication steps whose mode changed
** and check that each holds an event time of the run. */
static void compare_with_run(const char *work, const char *name, const char *options,
                             double t_end, double h, double tol, int want_mode_changes)
{
    char dir[1024], uri[1200], ref[1100];
    hy_fmi_description d;
    master ms;
    if (open_export(work, name, dir, sizeof dir, &d, &ms, uri, sizeof uri))
        return;
    snprintf(ref, sizeof ref, "%s/%s.csv", work, name);
    int rc = run_command("'%s' run '%s/%s.hym' --dt %.17g %s -o '%s' >/dev/null 2>&1",
                         HYDAE_CLI, HYDAE_EXAMPLES_DIR, name, h, options, ref);
    csv run;
    CHECK(rc == 0 && read_csv(ref, &run) == 0, "%s: hydae run (exit %d)", name, rc);
    CHECK(d.has_stop_time && d.stop_time == t_end && d.has_step_size && d.step_size == h,
          "%s: DefaultExperiment from the experiment block", name);

    n_logged_events = n_logged_errors = 0;
    void *fmu = ms.instantiate("it", CO_SIMULATION, d.token, uri, &the_callbacks, 0, 1);
    CHECK(fmu != NULL, "%s: fmi2Instantiate: %s", name, last_error);
    if (!fmu)
        return;
    CHECK(ms.setup(fmu, 0, 0.0, 0.0, 1, t_end) == FMI_OK && ms.enter_init(fmu) == FMI_OK
              && ms.exit_init(fmu) == FMI_OK,
          "%s: initialisation: %s", name, last_error);
    /* Outputs: every column of the run but time. */
    unsigned vrs[32];
    int cols[32], n_out = 0;
    for (int c = 1; c < run.n_cols && n_out < 32; c++) {
        int vr = vr_of(&d, run.names[c]);
        CHECK(vr >= 0, "%s: no FMU variable for column %s", name, run.names[c]);
        if (vr >= 0) {
            vrs[n_out] = (unsigned)vr;
            cols[n_out++] = c;
        }
    }
    char mode_name[128];
    int mode_index = -1;
    for (int i = 0; i < d.n_vars; i++)
        if (strncmp(d.vars[i].name, "mode(", 5) == 0)
            mode_index = i;
    CHECK(mode_index >= 0, "%s: a mode(CHART) variable", name);
    snprintf(mode_name, sizeof mode_name, "%s", mode_index >= 0 ? d.vars[mode_index].name : "");
    unsigned mode_vr = mode_index >= 0 ? d.vars[mode_index].vr : 0;

    long n_steps = (long)ceil(t_end / h - 1e-9);
    double worst = 0.0, worst_t = 0.0;
    int n_compared = 0, n_missing = 0, n_mode_changes = 0, n_changes_without_event = 0;
    int mode_before = 0;
    CHECK(ms.get_integer(fmu, &mode_vr, 1, &mode_before) == FMI_OK && mode_before == 1,
          "%s: %s starts in the first mode (%d)", name, mode_name, mode_before);
    int r = 0; /* the run's row cursor */
    for (long k = 0; k <= n_steps; k++) {
        double t_k = k >= n_steps ? t_end : (double)k * h;
        if (k > 0) {
            double t_prev = (double)(k - 1) * h;
            int status = ms.do_step(fmu, t_prev, t_k - t_prev, 1);
            CHECK(status == FMI_OK, "%s: fmi2DoStep(%g, %g): %s", name, t_prev, t_k - t_prev,
                  last_error);
            if (status != FMI_OK)
                break;
        }
        double values[32];
        int mode = 0;
        CHECK(ms.get_real(fmu, vrs, (size_t)n_out, values) == FMI_OK
                  && ms.get_integer(fmu, &mode_vr, 1, &mode) == FMI_OK,
              "%s: fmi2GetReal at %g", name, t_k);
        /* The run's rows up to t_k: events among them, the grid row last. */
        int had_event = 0, grid_row = -1;
        for (; r < run.n_rows && run.values[(size_t)r * (size_t)run.n_cols] <= t_k; r++) {
            double t_r = run.values[(size_t)r * (size_t)run.n_cols];
            if (t_r == t_k)
                grid_row = r;
            else
                had_event = 1;
            if (r + 1 < run.n_rows && run.values[(size_t)(r + 1) * (size_t)run.n_cols] == t_r)
                had_event = 1; /* a left and a right limit */
        }
        if (mode != mode_before) {
            n_mode_changes++;
            n_changes_without_event += !had_event;
        }
        mode_before = mode;
        if (grid_row < 0) {
            n_missing++;
            continue;
        }
        const double *row = run.values + (size_t)grid_row * (size_t)run.n_cols;
        for (int j = 0; j < n_out; j++) {
            if (isnan(row[cols[j]]))
                continue; /* not a variable of the active mode; the FMU holds a value */
            double diff = fabs(values[j] - row[cols[j]]);
            if (!(diff <= worst)) {
                worst = diff;
                worst_t = t_k;
            }
            n_compared++;
        }
    }
    CHECK(n_missing == 0, "%s: %d communication points without a row of the run", name,
          n_missing);
    CHECK(worst <= tol, "%s: the FMU's outputs differ from hydae run by %.3g at t = %g "
          "(tolerance %g)", name, worst, worst_t, tol);
    CHECK(n_mode_changes == want_mode_changes && n_changes_without_event == 0,
          "%s: %d mode changes at communication points, want %d; %d without an event of the "
          "run in their step", name, n_mode_changes, want_mode_changes, n_changes_without_event);
    CHECK(n_logged_events > 0 && n_logged_errors == 0, "%s: %d events and %d errors logged",
          name, n_logged_events, n_logged_errors);
    /* A step past the stop time is refused. */
    CHECK(ms.do_step(fmu, t_end, h, 1) == FMI_ERROR && strstr(last_error, "past the stop time"),
          "%s: a step past the stop time: %s", name, last_error);
    printf("%s %s: %ld communication steps of %g, %d values compared, worst |diff| %.3g at t = %g, "
           "%d mode changes, %d events logged\n", name, options, n_steps, h, n_compared, worst, worst_t,
           n_mode_changes, n_logged_events);
    ms.free_instance(fmu);
    dlclose(ms.lib);
    free(run.values);
    hy_fmi_description_free(&d);
    hy_fmi_archive_remove(dir);
}

/* e through fmi2SetReal; the errors of instantiation and stepping. */
static void parameters_and_errors(const char *work)
{
    char dir[1024], uri[1200];
    hy_fmi_description d;
    master ms;
    if (open_export(work, "bouncing_ball", dir, sizeof dir, &d, &ms, uri, sizeof uri))
        return;
    int vr_e = vr_of(&d, "e"), vr_v = vr_of(&d, "v"), vr_h = vr_of(&d, "h");
    int i_e = hy_fmi_description_find(&d, "e");
    CHECK(vr_e >= 0 && vr_v >= 0 && vr_h >= 0 && d.vars[i_e].causality == HY_FMI_PARAMETER
              && d.vars[i_e].variability == HY_FMI_FIXED && d.vars[i_e].start == 0.8,
          "e is a fixed parameter, start 0.8; h and v are variables");

    n_logged_errors = 0;
    CHECK(ms.instantiate("x", CO_SIMULATION, "{00000000-0000-0000-0000-000000000000}", uri,
                         &the_callbacks, 0, 0) == NULL
              && strstr(last_error, "does not match"),
          "a wrong GUID is refused: %s", last_error);
    CHECK(ms.instantiate("x", MODEL_EXCHANGE, d.token, uri, &the_callbacks, 0, 0) == NULL
              && strstr(last_error, "Co-Simulation only"),
          "Model Exchange is refused: %s", last_error);
    CHECK(ms.instantiate("x", CO_SIMULATION, d.token, "http://example.org/r", &the_callbacks,
                         0, 0) == NULL && strstr(last_error, "no file URI"),
          "a resource location that is no file URI: %s", last_error);

    void *fmu = ms.instantiate("ball", CO_SIMULATION, d.token, uri, &the_callbacks, 0, 0);
    CHECK(fmu != NULL, "instantiate: %s", last_error);
    if (!fmu)
        return;
    const double e = 0.5, g = 9.81;
    unsigned vr = (unsigned)vr_e, vr_hv[2] = { (unsigned)vr_h, (unsigned)vr_v };
    CHECK(ms.setup(fmu, 1, 1e-9, 0.0, 1, 1.0) == FMI_OK && ms.enter_init(fmu) == FMI_OK
              && ms.set_real(fmu, &vr, 1, &e) == FMI_OK && ms.exit_init(fmu) == FMI_OK,
          "initialisation with e = 0.5: %s", last_error);
    CHECK(ms.set_real(fmu, &vr, 1, &e) == FMI_ERROR, "a fixed parameter after initialisation");
    /* Closed form: impact at t1 = sqrt(2 h0 / g) with speed g t1, then
    ** v = e g t1 - g (t - t1), h = e g t1 (t - t1) - g (t - t1)^2 / 2. */
    const double t1 = sqrt(2.0 / g), h_step = 0.05;
    double worst = 0.0, t = 0.0;
    for (int k = 1; k <= 14; k++) { /* to t = 0.7: past t1, before the next impact */
        double t_next = k * h_step;
        CHECK(ms.do_step(fmu, t, t_next - t, 1) == FMI_OK, "doStep to %g: %s", t_next,
              last_error);
        t = t_next;
        double hv[2];
        CHECK(ms.get_real(fmu, vr_hv, 2, hv) == FMI_OK, "get h, v");
        double s = t - t1;
        double h_want = t < t1 ? 1.0 - 0.5 * g * t * t : e * g * t1 * s - 0.5 * g * s * s;
        double v_want = t < t1 ? -g * t : e * g * t1 - g * s;
        worst = fmax(worst, fmax(fabs(hv[0] - h_want), fabs(hv[1] - v_want)));
    }
    CHECK(worst < 1e-6, "ball with e = 0.5 against the closed form: worst %.3g", worst);
    CHECK(ms.do_step(fmu, 0.5, 0.1, 1) == FMI_ERROR && strstr(last_error, "stands at t"),
          "a step from the wrong time: %s", last_error);
    CHECK(ms.do_step(fmu, t, 0.05, 1) == FMI_OK, "the FMU goes on after a refused step: %s",
          last_error);
    CHECK(ms.get_real(fmu, &vr, 1, &(double){ 0 }) == FMI_OK, "a parameter reads back");
    unsigned bad = 999999;
    double value;
    CHECK(ms.get_real(fmu, &bad, 1, &value) == FMI_ERROR && strstr(last_error, "999999"),
          "an unknown value reference: %s", last_error);
    CHECK(ms.terminate(fmu) == FMI_OK, "terminate");
    ms.free_instance(fmu);
    printf("bouncing_ball, e = 0.5 by fmi2SetReal: worst |diff| %.3g from the closed form\n",
           worst);
    dlclose(ms.lib);
    hy_fmi_description_free(&d);
    hy_fmi_archive_remove(dir);
}

/* A model file with errors is refused at export time, with where. */
static void export_errors(const char *work)
{
    char bad[1024], out[1100], fmu[1100];
    snprintf(bad, sizeof bad, "%s/bad.hym", work);
    snprintf(out, sizeof out, "%s/bad.txt", work);
    snprintf(fmu, sizeof fmu, "%s/bad.fmu", work);
    FILE *f = fopen(bad, "w");
    fputs("model bad\n  chart c\n    mode m\n      Real x(start = 1);\n    equation\n"
          "      der(x) = -y;\n    end m;\n  end c;\nend bad;\n", f);
    fclose(f);
    int rc = run_command("'%s' export '%s' -o '%s' 2>'%s'", HYDAE_CLI, bad, fmu, out);
    size_t size = 0;
    char *text = hy_fmi_read_file(out, &size);
    CHECK(rc == 2 && text && strstr(text, "bad.hym:6:") && strstr(text, "no FMU written"),
          "a model with errors: exit %d, %s", rc, text ? text : "");
    FILE *none = fopen(fmu, "r");
    CHECK(none == NULL, "no FMU left behind");
    if (none)
        fclose(none);
    free(text);
    rc = run_command("'%s' export '%s/missing.hym' -o '%s' 2>/dev/null", HYDAE_CLI, work, fmu);
    CHECK(rc == 2, "a missing model file: exit %d", rc);
    rc = run_command("'%s' export 2>/dev/null", HYDAE_CLI);
    CHECK(rc == 2, "no model file: exit %d", rc);
}

int main(void)
{
    char work[] = "/tmp/hydae-export-test-XXXXXX";
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    compare_with_run(work, "bouncing_ball", "", 3.5, 0.01, 1e-6, 0);
    compare_with_run(work, "string_pendulum", "", 12.0, 0.01, 1e-5, 4);
    /* A run that steps onto its output points takes the FMU's steps. */
    compare_with_run(work, "bouncing_ball", "--dae_interpolation FALSE", 3.5, 0.01, 0.0, 0);
    compare_with_run(work, "string_pendulum", "--dae_interpolation FALSE", 12.0, 0.01, 0.0, 4);
    parameters_and_errors(work);
    export_errors(work);
    run_command("rm -rf '%s'", work);
    return CHECK_DONE();
}
