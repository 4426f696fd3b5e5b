/*
** FMI Co-Simulation export (docs/fmi.md, "Export"): `hydae export` packs
** examples/bouncing_ball.hym and examples/string_pendulum.hym (two modes
** of 2 and 4 states) as FMI 2.0 and 3.0 FMUs; this test unpacks each,
** reads its modelDescription.xml with hydae's own parser, loads the binary
** with dlopen and drives it as a master does (FMI 2.0.4 section 4.2.4,
** FMI 3.0 section 4.2: instantiate with the resources' location, the
** experiment, enter and exit initialisation, DoStep(t_k, h) at t_k = k h,
** the outputs read after each step, terminate, free). Outputs at the
** communication points are compared with `hydae run` of the model file at
** the same output grid (bit for bit with dae_interpolation = FALSE, which
** also steps onto the output points); the mode changes seen at the
** communication points fall in the steps that hold the events of that
** run; the bouncing ball with e set by the master rises after its first
** impact as the closed form says; and the errors (a GUID or resource
** location the binary refuses, a step that does not start where the FMU
** stands, a model file with errors at export time) are reported, not
** crashed on.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */

#include "check.h"
#include "fmi/archive.h"
#include "fmi/description.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef HYDAE_EXAMPLES_DIR
#define HYDAE_EXAMPLES_DIR "examples"
#endif

/* The FMI 2.0 and 3.0 types this master needs (fmi2FunctionTypes.h,
** fmi3FunctionTypes.h). */
typedef struct {
    void (*logger)(void *, const char *, int, const char *, const char *, ...);
    void *(*allocate)(size_t, size_t);
    void (*free_memory)(void *);
    void (*step_finished)(void *, int);
    void *env;
} callbacks_t;
typedef void *(*instantiate2_fn)(const char *, int, const char *, const char *,
                                 const callbacks_t *, int, int);
typedef void (*log3_fn)(void *, int, const char *, const char *);
typedef void *(*instantiate3_fn)(const char *, const char *, const char *, bool, bool, bool, bool,
                                 const unsigned *, size_t, void *, log3_fn, void *);
typedef int (*setup2_fn)(void *, int, double, double, int, double);
typedef int (*enter_init3_fn)(void *, bool, double, double, bool, double);
typedef int (*instance_fn)(void *);
typedef void (*free_fn)(void *);
typedef int (*get_real2_fn)(void *, const unsigned *, size_t, double *);
typedef int (*set_real2_fn)(void *, const unsigned *, size_t, const double *);
typedef int (*get_integer2_fn)(void *, const unsigned *, size_t, int *);
typedef int (*get_float3_fn)(void *, const unsigned *, size_t, double *, size_t);
typedef int (*set_float3_fn)(void *, const unsigned *, size_t, const double *, size_t);
typedef int (*get_int3_fn)(void *, const unsigned *, size_t, int32_t *, size_t);
typedef int (*do_step2_fn)(void *, double, double, int);
typedef int (*do_step3_fn)(void *, double, double, bool, bool *, bool *, bool *, double *);

enum { FMI_OK = 0, FMI_ERROR = 3, CO_SIMULATION = 1, MODEL_EXCHANGE = 0 };

typedef struct master {
    int version;
    void *lib;
    instantiate2_fn instantiate2;
    instantiate3_fn instantiate3;
    setup2_fn setup2;
    instance_fn enter_init2, exit_init, terminate, reset;
    enter_init3_fn enter_init3;
    free_fn free_instance;
    get_real2_fn get_real2;
    set_real2_fn set_real2;
    get_integer2_fn get_integer2;
    get_float3_fn get_float3;
    set_float3_fn set_float3;
    get_int3_fn get_int3;
    do_step2_fn do_step2;
    do_step3_fn do_step3;
} master;

/* What the logger saw. */
static int n_logged_errors, n_logged_events;
static char last_error[4096];

static void note(int status, const char *text)
{
    if (status == FMI_ERROR) {
        n_logged_errors++;
        snprintf(last_error, sizeof last_error, "%s", text);
    } else if (strncmp(text, "event at t = ", 13) == 0) {
        n_logged_events++;
    }
}

static void logger2(void *env, const char *instance, int status, const char *category,
                    const char *message, ...)
{
    (void)env, (void)instance, (void)category;
    char text[4096];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    note(status, text);
}

static void logger3(void *env, int status, const char *category, const char *message)
{
    (void)env, (void)category;
    note(status, message);
}

static const callbacks_t the_callbacks = { logger2, calloc, free, NULL, NULL };

/* The calling sequences of both versions behind one face. */
static void *m_instantiate(const master *ms, const char *name, int type, const char *token,
                           const char *resources)
{
    if (ms->version == 2)
        return ms->instantiate2(name, type, token, resources, &the_callbacks, 0, 1);
    if (type != CO_SIMULATION)
        return NULL;
    return ms->instantiate3(name, token, resources, false, true, false, false, NULL, 0, NULL,
                            logger3, NULL);
}

static int m_enter_init(const master *ms, void *fmu, double tol, double t_end)
{
    if (ms->version == 2) {
        int status = ms->setup2(fmu, tol > 0, tol, 0.0, 1, t_end);
        return status ? status : ms->enter_init2(fmu);
    }
    return ms->enter_init3(fmu, tol > 0, tol, 0.0, true, t_end);
}

static int m_get_real(const master *ms, void *fmu, const unsigned *vr, size_t n, double *v)
{
    return ms->version == 2 ? ms->get_real2(fmu, vr, n, v) : ms->get_float3(fmu, vr, n, v, n);
}

static int m_set_real(const master *ms, void *fmu, const unsigned *vr, size_t n, const double *v)
{
    return ms->version == 2 ? ms->set_real2(fmu, vr, n, v) : ms->set_float3(fmu, vr, n, v, n);
}

static int m_get_mode(const master *ms, void *fmu, unsigned vr, int *mode)
{
    if (ms->version == 2)
        return ms->get_integer2(fmu, &vr, 1, mode);
    int32_t m = 0;
    int status = ms->get_int3(fmu, &vr, 1, &m, 1);
    *mode = m;
    return status;
}

static int m_do_step(const master *ms, void *fmu, double t, double h)
{
    if (ms->version == 2)
        return ms->do_step2(fmu, t, h, 1);
    bool event = true, terminate = true, early = true;
    double t_last = -1.0;
    int status = ms->do_step3(fmu, t, h, true, &event, &terminate, &early, &t_last);
    CHECK(status != FMI_OK || (!event && !terminate && !early && t_last == t + h),
          "fmi3DoStep's out-arguments: event %d, terminate %d, early %d, last %g", event,
          terminate, early, t_last);
    return status;
}

static int load(master *ms, int version, const char *so)
{
    memset(ms, 0, sizeof *ms);
    ms->version = version;
    ms->lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(ms->lib != NULL, "dlopen %s: %s", so, dlerror());
    if (!ms->lib)
        return -1;
    /* dlsym's void * to function pointers: POSIX allows it. */
#define RESOLVE(field, name) *(void **)&ms->field = dlsym(ms->lib, name)
    int ok;
    if (version == 2) {
        RESOLVE(instantiate2, "fmi2Instantiate");
        RESOLVE(setup2, "fmi2SetupExperiment");
        RESOLVE(enter_init2, "fmi2EnterInitializationMode");
        RESOLVE(exit_init, "fmi2ExitInitializationMode");
        RESOLVE(terminate, "fmi2Terminate");
        RESOLVE(reset, "fmi2Reset");
        RESOLVE(free_instance, "fmi2FreeInstance");
        RESOLVE(get_real2, "fmi2GetReal");
        RESOLVE(set_real2, "fmi2SetReal");
        RESOLVE(get_integer2, "fmi2GetInteger");
        RESOLVE(do_step2, "fmi2DoStep");
        ok = ms->instantiate2 && ms->setup2 && ms->enter_init2 && ms->get_real2 && ms->set_real2
             && ms->get_integer2 && ms->do_step2;
    } else {
        RESOLVE(instantiate3, "fmi3InstantiateCoSimulation");
        RESOLVE(enter_init3, "fmi3EnterInitializationMode");
        RESOLVE(exit_init, "fmi3ExitInitializationMode");
        RESOLVE(terminate, "fmi3Terminate");
        RESOLVE(reset, "fmi3Reset");
        RESOLVE(free_instance, "fmi3FreeInstance");
        RESOLVE(get_float3, "fmi3GetFloat64");
        RESOLVE(set_float3, "fmi3SetFloat64");
        RESOLVE(get_int3, "fmi3GetInt32");
        RESOLVE(do_step3, "fmi3DoStep");
        ok = ms->instantiate3 && ms->enter_init3 && ms->get_float3 && ms->set_float3
             && ms->get_int3 && ms->do_step3;
    }
#undef RESOLVE
    ok = ok && ms->exit_init && ms->terminate && ms->reset && ms->free_instance;
    CHECK(ok, "%s lacks an fmi%d function", so, version);
    /* Only the fmi2* and fmi3* functions are exported: none of the core's. */
    CHECK(dlsym(ms->lib, "hydae_sim_run") == NULL && dlsym(ms->lib, "hy_malloc") == NULL
              && dlsym(ms->lib, "slave_do_step") == NULL,
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

/* The exported FMU (FMI `version`) of examples/NAME.hym, unpacked: its
** description parsed into *d, the binary loaded into *ms, the resources'
** location (2.0: a file URI, 3.0: a directory) in resources. */
static int open_export(const char *work, const char *name, int version, char *dir,
                       size_t dir_size, hy_fmi_description *d, master *ms, char *resources,
                       size_t resources_size)
{
    char fmu[1024], err[2048] = "";
    snprintf(fmu, sizeof fmu, "%s/%s%d.fmu", work, name, version);
    int rc = run_command("'%s' export '%s/%s.hym' --fmi %d -o '%s' 2>/dev/null", HYDAE_CLI,
                         HYDAE_EXAMPLES_DIR, name, version, fmu);
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
    CHECK(d->fmi_major == version && d->cs_identifier && !d->me_identifier && d->token
              && d->token[0] == '{',
          "%s: an FMI %d.0 Co-Simulation description with a GUID", name, version);
    int i_time = hy_fmi_description_find(d, "time");
    CHECK(i_time >= 0 && d->vars[i_time].causality == HY_FMI_INDEPENDENT,
          "%s: time is the independent variable", name);
    snprintf(path, sizeof path, "%s/binaries/%s/%s.so", dir,
             version == 2 ? "linux64" : "x86_64-linux", d->cs_identifier ? d->cs_identifier : "?");
    if (version == 2)
        snprintf(resources, resources_size, "file://%s/resources", dir);
    else
        snprintf(resources, resources_size, "%s/resources/", dir);
    return load(ms, version, path);
}

static int vr_of(const hy_fmi_description *d, const char *name)
{
    int i = hy_fmi_description_find(d, name);
    return i < 0 ? -1 : (int)d->vars[i].vr;
}

/* Drive the FMU at step h over [0, t_end] and compare every output with
** the run's grid rows; count the communication steps whose mode changed
** and check that each holds an event time of the run. t_end = 0: the
** FMU's default experiment; want_mode_changes < 0: not counted. */
static void compare_with_run(const char *work, const char *name, int version,
                             const char *options, double t_end, double h, double tol,
                             int want_mode_changes)
{
    char dir[1024], uri[1200], ref[1100];
    hy_fmi_description d;
    master ms;
    if (open_export(work, name, version, dir, sizeof dir, &d, &ms, uri, sizeof uri))
        return;
    if (t_end == 0.0 && d.has_stop_time && d.has_step_size) {
        t_end = d.stop_time;
        h = d.step_size;
    }
    CHECK(d.has_stop_time && d.stop_time == t_end && d.has_step_size && d.step_size == h
              && !d.has_start_time,
          "%s: DefaultExperiment from the experiment block", name);
    snprintf(ref, sizeof ref, "%s/%s.csv", work, name);
    int rc = run_command("'%s' run '%s/%s.hym' --dt %.17g %s -o '%s' >/dev/null 2>&1",
                         HYDAE_CLI, HYDAE_EXAMPLES_DIR, name, h, options, ref);
    csv run;
    CHECK(rc == 0 && read_csv(ref, &run) == 0, "%s: hydae run (exit %d)", name, rc);

    n_logged_events = n_logged_errors = 0;
    void *fmu = m_instantiate(&ms, "it", CO_SIMULATION, d.token, uri);
    CHECK(fmu != NULL, "%s: fmi2Instantiate: %s", name, last_error);
    if (!fmu)
        return;
    CHECK(m_enter_init(&ms, fmu, 0.0, t_end) == FMI_OK && ms.exit_init(fmu) == FMI_OK,
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
    CHECK(m_get_mode(&ms, fmu, mode_vr, &mode_before) == FMI_OK && mode_before == 1,
          "%s: %s starts in the first mode (%d)", name, mode_name, mode_before);
    int r = 0; /* the run's row cursor */
    for (long k = 0; k <= n_steps; k++) {
        double t_k = k >= n_steps ? t_end : (double)k * h;
        if (k > 0) {
            double t_prev = (double)(k - 1) * h;
            int status = m_do_step(&ms, fmu, t_prev, t_k - t_prev);
            CHECK(status == FMI_OK, "%s: fmi2DoStep(%g, %g): %s", name, t_prev, t_k - t_prev,
                  last_error);
            if (status != FMI_OK)
                break;
        }
        double values[32];
        int mode = 0;
        CHECK(m_get_real(&ms, fmu, vrs, (size_t)n_out, values) == FMI_OK
                  && m_get_mode(&ms, fmu, mode_vr, &mode) == FMI_OK,
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
    CHECK((want_mode_changes < 0 || n_mode_changes == want_mode_changes)
              && n_changes_without_event == 0,
          "%s: %d mode changes at communication points, want %d; %d without an event of the "
          "run in their step", name, n_mode_changes, want_mode_changes, n_changes_without_event);
    CHECK((want_mode_changes < 0 || n_logged_events > 0) && n_logged_errors == 0,
          "%s: %d events and %d errors logged",
          name, n_logged_events, n_logged_errors);
    /* A step past the stop time is refused. */
    CHECK(m_do_step(&ms, fmu, t_end, h) == FMI_ERROR && strstr(last_error, "past the stop time"),
          "%s: a step past the stop time: %s", name, last_error);
    printf("FMI %d.0, %s %s: %ld communication steps of %g, %d values compared, worst |diff| "
           "%.3g at t = %g, %d mode changes, %d events logged\n", version, name, options, n_steps,
           h, n_compared, worst, worst_t, n_mode_changes, n_logged_events);
    ms.free_instance(fmu);
    dlclose(ms.lib);
    free(run.values);
    hy_fmi_description_free(&d);
    hy_fmi_archive_remove(dir);
}

/* e through fmi2SetReal; the errors of instantiation and stepping. */
/* The ball of examples/bouncing_ball.hym from h = 1 at rest: free fall to
** t1 = sqrt(2 / g), up at e1 g t1 until t2 = t1 + 2 e1 t1, then up at
** e2 e1 g t1 (h and v at t; before the third impact). */
static void ball_exact(double t, double g, double e1, double e2, double *h, double *v)
{
    double t1 = sqrt(2.0 / g), t2 = t1 + 2.0 * e1 * t1;
    double t_from = t < t1 ? 0.0 : t < t2 ? t1 : t2;
    double h_from = t < t1 ? 1.0 : 0.0;
    double v_from = t < t1 ? 0.0 : t < t2 ? e1 * g * t1 : e2 * e1 * g * t1;
    double s = t - t_from;
    *h = h_from + v_from * s - 0.5 * g * s * s;
    *v = v_from - g * s;
}

/* Steps of h_step from *t to k_to h_step; the worst |diff| of h and v
** from ball_exact at the communication points. */
static double step_ball(const master *ms, void *fmu, const unsigned vr_hv[2], double *t, int k_to,
                        double h_step, double g, double e1, double e2)
{
    double worst = 0.0;
    for (int k = (int)lround(*t / h_step) + 1; k <= k_to; k++) {
        double t_next = k * h_step, hv[2] = { NAN, NAN }, h, v;
        CHECK(m_do_step(ms, fmu, *t, t_next - *t) == FMI_OK
                  && m_get_real(ms, fmu, vr_hv, 2, hv) == FMI_OK,
              "doStep to %g: %s", t_next, last_error);
        *t = t_next;
        ball_exact(*t, g, e1, e2, &h, &v);
        worst = fmax(worst, fmax(fabs(hv[0] - h), fabs(hv[1] - v)));
    }
    return worst;
}

static void parameters_and_errors(const char *work, int version)
{
    char dir[1024], uri[1200];
    hy_fmi_description d;
    master ms;
    if (open_export(work, "bouncing_ball", version, dir, sizeof dir, &d, &ms, uri, sizeof uri))
        return;
    int vr_e = vr_of(&d, "e"), vr_v = vr_of(&d, "v"), vr_h = vr_of(&d, "h");
    int i_e = hy_fmi_description_find(&d, "e");
    CHECK(vr_e >= 0 && vr_v >= 0 && vr_h >= 0 && d.vars[i_e].causality == HY_FMI_PARAMETER
              && d.vars[i_e].variability == HY_FMI_TUNABLE && d.vars[i_e].start == 0.8,
          "e is a tunable parameter, start 0.8; h and v are variables");

    n_logged_errors = 0;
    CHECK(m_instantiate(&ms, "x", CO_SIMULATION, "{00000000-0000-0000-0000-000000000000}",
                        uri) == NULL
              && strstr(last_error, "does not match"),
          "a wrong GUID is refused: %s", last_error);
    if (version == 2)
        CHECK(m_instantiate(&ms, "x", MODEL_EXCHANGE, d.token, uri) == NULL
                  && strstr(last_error, "Co-Simulation only"),
              "Model Exchange is refused: %s", last_error);
    CHECK(m_instantiate(&ms, "x", CO_SIMULATION, d.token, "http://example.org/r") == NULL
              && strstr(last_error, version == 2 ? "no file URI" : "no absolute directory"),
          "a resource location that is neither a file URI nor a directory: %s", last_error);

    void *fmu = m_instantiate(&ms, "ball", CO_SIMULATION, d.token, uri);
    CHECK(fmu != NULL, "instantiate: %s", last_error);
    if (!fmu)
        return;
    const double e = 0.5, g = 9.81;
    unsigned vr = (unsigned)vr_e, vr_hv[2] = { (unsigned)vr_h, (unsigned)vr_v };
    double h_init = 0.0;
    CHECK(m_enter_init(&ms, fmu, 1e-9, 1.0) == FMI_OK
              && m_get_real(&ms, fmu, vr_hv, 1, &h_init) == FMI_OK && h_init == 1.0
              && m_set_real(&ms, fmu, &vr, 1, &e) == FMI_OK && ms.exit_init(fmu) == FMI_OK,
          "initialisation with e = 0.5 (h read as %g first): %s", h_init, last_error);
    const double h_step = 0.05;
    double t = 0.0; /* to t = 0.7: past the first impact, before the next */
    double worst = step_ball(&ms, fmu, vr_hv, &t, 14, h_step, g, e, e);
    CHECK(worst < 1e-6, "ball with e = 0.5 against the closed form: worst %.3g", worst);
    CHECK(m_do_step(&ms, fmu, 0.5, 0.1) == FMI_ERROR && strstr(last_error, "stands at t"),
          "a step from the wrong time: %s", last_error);
    CHECK(m_do_step(&ms, fmu, t, 0.05) == FMI_OK, "the FMU goes on after a refused step: %s",
          last_error);
    double e_back = 0.0;
    CHECK(m_get_real(&ms, fmu, &vr, 1, &e_back) == FMI_OK && e_back == e,
          "the parameter reads back: %g", e_back);
    /* e tuned to 0.9 at t = 0.75, between the first and second impacts. */
    const double e2 = 0.9;
    t += 0.05; /* the step after the refused one */
    CHECK(m_set_real(&ms, fmu, &vr, 1, &e2) == FMI_OK, "e tuned at t = %g: %s", t, last_error);
    /* to the stop time 1, before the third impact */
    double worst_tuned = step_ball(&ms, fmu, vr_hv, &t, 20, h_step, g, e, e2);
    CHECK(worst_tuned < 1e-6, "ball with e tuned to 0.9 at t = 0.75: worst %.3g", worst_tuned);
    printf("FMI %d.0, bouncing_ball, e tuned from 0.5 to 0.9 at t = 0.75 by the master: worst "
           "|diff| %.3g from the closed form to t = 1\n", version, worst_tuned);
    unsigned bad = 999999;
    double value;
    CHECK(m_get_real(&ms, fmu, &bad, 1, &value) == FMI_ERROR && strstr(last_error, "999999"),
          "an unknown value reference: %s", last_error);
    CHECK(ms.terminate(fmu) == FMI_OK, "terminate");
    /* Reset: the model file's parameter values again, a new run. */
    double after_reset[2] = { 0, 0 };
    CHECK(ms.reset(fmu) == FMI_OK && m_get_real(&ms, fmu, &vr, 1, &e_back) == FMI_OK
              && e_back == 0.8 && m_enter_init(&ms, fmu, 0.0, 1.0) == FMI_OK
              && ms.exit_init(fmu) == FMI_OK && m_do_step(&ms, fmu, 0.0, 0.25) == FMI_OK
              && m_get_real(&ms, fmu, vr_hv, 2, after_reset) == FMI_OK,
          "reset and run again: %s", last_error);
    CHECK(fabs(after_reset[0] - (1.0 - 0.5 * g * 0.0625)) < 1e-9
              && fabs(after_reset[1] + g * 0.25) < 1e-9,
          "after reset, h %.17g and v %.17g at t = 0.25", after_reset[0], after_reset[1]);
    ms.free_instance(fmu);
    printf("FMI %d.0, bouncing_ball, e = 0.5 set by the master: worst |diff| %.3g from the "
           "closed form\n", version, worst);
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
    rc = run_command("'%s' export '%s/bouncing_ball.hym' --fmi 4 -o '%s' 2>/dev/null", HYDAE_CLI,
                     HYDAE_EXAMPLES_DIR, fmu);
    CHECK(rc == 2, "--fmi 4: exit %d", rc);
    rc = run_command("'%s' export '%s/bouncing_ball.hym' --runtime '%s/none.so' -o '%s' 2>'%s'",
                     HYDAE_CLI, HYDAE_EXAMPLES_DIR, work, fmu, out);
    text = hy_fmi_read_file(out, &size);
    CHECK(rc == 2 && text && strstr(text, "none.so"), "a missing runtime library: exit %d, %s",
          rc, text ? text : "");
    free(text);
    none = fopen(fmu, "r");
    CHECK(none == NULL, "no FMU left behind without a runtime library");
    if (none)
        fclose(none);
}

/* examples/first_order_input.hym (T x' = u - x, T = 0.5, x(0) = 0): its
** `input Real u` is the FMU's input, start 1; the master steps at h =
** 0.05, sets u = -1 at t = 0.5 and steps on to 1. Closed form: x = 1 -
** exp(-t / T), then x = -1 + (x(0.5) + 1) exp(-(t - 0.5) / T). */
static void input_set_by_master(const char *work, int version)
{
    char dir[1024], uri[1200];
    hy_fmi_description d;
    master ms;
    if (open_export(work, "first_order_input", version, dir, sizeof dir, &d, &ms, uri,
                    sizeof uri))
        return;
    int vr_u = vr_of(&d, "u"), vr_x = vr_of(&d, "x"), i_u = hy_fmi_description_find(&d, "u");
    CHECK(vr_u >= 0 && vr_x >= 0 && d.vars[i_u].causality == HY_FMI_INPUT
              && d.vars[i_u].has_start && d.vars[i_u].start == 1.0,
          "u is an input, start 1; x a variable");
    void *fmu = m_instantiate(&ms, "lag", CO_SIMULATION, d.token, uri);
    CHECK(fmu != NULL && m_enter_init(&ms, fmu, 1e-9, 2.0) == FMI_OK
              && ms.exit_init(fmu) == FMI_OK,
          "instantiate and initialise: %s", last_error);
    if (!fmu)
        return;
    const double T = 0.5, h_step = 0.05, u_new = -1.0;
    unsigned vr_in = (unsigned)vr_u, vr_out = (unsigned)vr_x;
    double worst = 0.0, t = 0.0, x_half = 1.0 - exp(-0.5 / T), u_back = 0.0;
    for (int k = 1; k <= 20; k++) {
        if (k == 11)
            CHECK(m_set_real(&ms, fmu, &vr_in, 1, &u_new) == FMI_OK
                      && m_get_real(&ms, fmu, &vr_in, 1, &u_back) == FMI_OK && u_back == u_new,
                  "u set to -1 at t = 0.5 (reads back %g): %s", u_back, last_error);
        double t_next = k * h_step, x = 0.0;
        CHECK(m_do_step(&ms, fmu, t, t_next - t) == FMI_OK
                  && m_get_real(&ms, fmu, &vr_out, 1, &x) == FMI_OK,
              "doStep to %g: %s", t_next, last_error);
        t = t_next;
        double want = k <= 10 ? 1.0 - exp(-t / T) : -1.0 + (x_half + 1.0) * exp(-(t - 0.5) / T);
        worst = fmax(worst, fabs(x - want));
    }
    printf("FMI %d.0, first_order_input, u set from 1 to -1 at t = 0.5 by the master: worst "
           "|diff| %.3g from the closed form to t = 1\n", version, worst);
    CHECK(worst < 1e-7, "x against the closed form with u switched: worst %.3g", worst);
    CHECK(ms.terminate(fmu) == FMI_OK, "terminate");
    ms.free_instance(fmu);
    dlclose(ms.lib);
    hy_fmi_description_free(&d);
    hy_fmi_archive_remove(dir);
}

/* Every model file of examples/, at its own experiment's step. */
static void every_example(const char *work)
{
    DIR *dir = opendir(HYDAE_EXAMPLES_DIR);
    CHECK(dir != NULL, "open %s", HYDAE_EXAMPLES_DIR);
    int n = 0;
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".hym") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 4), e->d_name);
        compare_with_run(work, name, 2, "--dae_interpolation FALSE", 0.0, 0.0, 0.0, -1);
        n++;
    }
    if (dir)
        closedir(dir);
    CHECK(n >= 20, "%d model files in examples/", n);
}

int main(void)
{
    char work[] = "/tmp/hydae-export-test-XXXXXX";
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    for (int version = 2; version <= 3; version++) {
        compare_with_run(work, "bouncing_ball", version, "", 3.5, 0.01, 1e-6, 0);
        compare_with_run(work, "string_pendulum", version, "", 12.0, 0.01, 1e-5, 4);
        /* A run that steps onto its output points takes the FMU's steps. */
        compare_with_run(work, "bouncing_ball", version, "--dae_interpolation FALSE", 3.5, 0.01,
                         0.0, 0);
        compare_with_run(work, "string_pendulum", version, "--dae_interpolation FALSE", 12.0,
                         0.01, 0.0, 4);
        parameters_and_errors(work, version);
        input_set_by_master(work, version);
    }
    every_example(work);
    export_errors(work);
    run_command("rm -rf '%s'", work);
    return CHECK_DONE();
}
