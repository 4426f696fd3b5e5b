/*
** The binary of every exported FMU (docs/fmi.md, "Export"): FMI 2.0 for
** Co-Simulation written from the FMI 2.0.4 specification (section 2.1,
** the common functions and their types; section 4.2, the Co-Simulation
** functions; Fig. 10 of section 4.2.4, the state machine of a slave). One
** generic library: fmi2Instantiate compiles the model file it finds in the
** FMU's resources with hydae's compiler, and fmi2DoStep runs the hybrid
** loop up to the next communication point with hydae_sim_advance, events
** and mode changes inside the step included.
**
** Variables are those of export.h: parameters (settable until
** fmi2ExitInitializationMode), outputs (the result columns: the values of
** the active configuration; a variable the active modes do not have keeps
** the last value it had, 0 before it had one) and the active mode of each
** chart as an Integer. Every failure is an fmi2Error with a message
** through the logger; nothing here aborts.
**
** The library is linked with the hydae core and exports only the fmi2*
** functions (runtime.map).
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "export.h"

#include "core/core.h"
#include "lang/build.h"
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the types of fmi2TypesPlatform.h and fmi2FunctionTypes.h ---- */

typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
    fmi2DoStepStatus,
    fmi2PendingStatus,
    fmi2LastSuccessfulTime,
    fmi2Terminated
} fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String,
                                   fmi2String, ...);
typedef struct {
    fmi2CallbackLogger logger;
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(fmi2ComponentEnvironment, fmi2Status);
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define FMI2_EXPORT __attribute__((visibility("default")))

/* ---- an instance ---- */

/* The states of a slave (FMI 2.0.4, Fig. 10). */
typedef enum slave_state {
    SLAVE_INSTANTIATED,
    SLAVE_INITIALIZATION,
    SLAVE_STEPPING,   /* "slaveInitialized": stepComplete */
    SLAVE_TERMINATED,
    SLAVE_ERROR
} slave_state;

typedef struct slave {
    char *name;
    fmi2CallbackFunctions callbacks;
    int logging_on, log_events;
    char *text;                 /* the model file */
    size_t text_size;
    char *path;                 /* where it is, for messages */
    hydae_model *model;
    hy_lang_experiment experiment;
    int n_vars;
    hy_export_var *vars;
    int *var_of_vr;             /* value reference -> index in vars, or -1 */
    uint32_t vr_limit;
    double *row, *held;         /* the last row; each column's last value */
    double t_start, t_stop, tolerance;
    double t_end;               /* of the run: t_stop, or t_start + 1e9 */
    int has_stop, has_tolerance;
    hydae_sim *sim;             /* the run, from the end of initialisation */
    double t;                   /* the current communication point */
    slave_state state;
    int run_ended;              /* t_stop reached */
} slave;

/* A message through the master's logger, '%' doubled so that it is no
** format for the logger's printf. */
static void say(const slave *s, fmi2Status status, const char *category, const char *fmt, ...)
    HY_PRINTF(4, 5);
static void say(const slave *s, fmi2Status status, const char *category, const char *fmt, ...)
{
    if (!s || !s->callbacks.logger)
        return;
    if (status == fmi2OK && !(s->logging_on && s->log_events))
        return;
    char text[2048], escaped[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t n = 0;
    for (const char *c = text; *c && n + 2 < sizeof escaped; c++) {
        if (*c == '%')
            escaped[n++] = '%';
        escaped[n++] = *c;
    }
    escaped[n] = '\0';
    s->callbacks.logger(s->callbacks.componentEnvironment, s->name, status, category, escaped);
}

static fmi2Status fail(slave *s, const char *fmt, ...) HY_PRINTF(2, 3);
static fmi2Status fail(slave *s, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    say(s, fmi2Error, "logStatusError", "%s", text);
    return fmi2Error;
}

/* A call allowed only in the states of mask (1 << slave_state). */
static int allowed(slave *s, const char *function, unsigned mask)
{
    if (!s)
        return 0;
    if (mask & (1u << s->state))
        return 1;
    static const char *const names[] = { "instantiated", "initialization mode", "stepping",
                                         "terminated", "error" };
    fail(s, "%s is not allowed in state %s", function, names[s->state]);
    return 0;
}

#define ANY_STATE 0x1fu
#define BEFORE_RUN ((1u << SLAVE_INSTANTIATED) | (1u << SLAVE_INITIALIZATION))

/* ---- the model file ---- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The model file's path from fmuResourceLocation, a file URI (RFC 8089:
** file:///path, file://localhost/path, file:/path), %XX decoded. NULL if
** it is no file URI. */
static char *resource_path(const char *uri)
{
    const char *p;
    if (!uri || strncmp(uri, "file:", 5) != 0)
        return NULL;
    p = uri + 5;
    if (strncmp(p, "//localhost/", 12) == 0)
        p += 11;
    else if (strncmp(p, "///", 3) == 0)
        p += 2;
    else if (strncmp(p, "//", 2) == 0)
        return NULL; /* another host */
    if (*p != '/')
        return NULL;
    size_t n = strlen(p);
    char *path = malloc(n + sizeof "/" HY_EXPORT_RESOURCE_NAME);
    if (!path)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (p[i] == '%' && i + 2 < n + 1 && (hi = hex_digit(p[i + 1])) >= 0
            && (lo = hex_digit(p[i + 2])) >= 0) {
            path[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            path[k++] = p[i];
        }
    }
    if (k > 0 && path[k - 1] == '/')
        k--;
    strcpy(path + k, "/" HY_EXPORT_RESOURCE_NAME);
    return path;
}

/* Compile s->text into s->model, with the variables' tables. */
static int compile_model(slave *s)
{
    char *diagnostics = NULL;
    size_t diagnostics_size = 0;
    FILE *diag = open_memstream(&diagnostics, &diagnostics_size);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(s->text, s->text_size, s->path, diag,
                                                &s->experiment, &n_errors);
    if (diag)
        fclose(diag);
    if (!unit) {
        fail(s, "%s does not compile (%d error%s):\n%s", s->path, n_errors,
             n_errors == 1 ? "" : "s", diagnostics ? diagnostics : "");
        free(diagnostics);
        return -1;
    }
    free(diagnostics);
    s->model = hy_lang_unit_model(unit);
    if (hydae_model_check(s->model) != 0)
        return fail(s, "%s: %s", s->path, hydae_model_errmsg(s->model)), -1;
    s->n_vars = hy_export_n_vars(s->model);
    s->vr_limit = hy_export_vr_limit(s->model);
    size_t n_cols = (size_t)(s->model->n_columns > 0 ? s->model->n_columns : 1);
    s->vars = calloc((size_t)s->n_vars + 1, sizeof *s->vars);
    s->var_of_vr = malloc(sizeof(int) * (s->vr_limit + 1));
    s->row = calloc(n_cols, sizeof(double));
    s->held = calloc(n_cols, sizeof(double));
    if (!s->vars || !s->var_of_vr || !s->row || !s->held)
        return fail(s, "out of memory"), -1;
    for (uint32_t vr = 0; vr < s->vr_limit; vr++)
        s->var_of_vr[vr] = -1;
    for (int i = 0; i < s->n_vars; i++) {
        hy_export_var_at(s->model, i, &s->vars[i]);
        s->var_of_vr[s->vars[i].vr] = i;
    }
    return 0;
}

static void free_run(slave *s)
{
    hydae_sim_free(s->sim);
    s->sim = NULL;
    s->run_ended = 0;
}

static void free_model(slave *s)
{
    free_run(s);
    hydae_model_free(s->model);
    s->model = NULL;
    free(s->vars);
    free(s->var_of_vr);
    free(s->row);
    free(s->held);
    s->vars = NULL;
    s->var_of_vr = NULL;
    s->row = s->held = NULL;
}

static void free_slave(slave *s)
{
    if (!s)
        return;
    free_model(s);
    free(s->text);
    free(s->path);
    free(s->name);
    free(s);
}

/* ---- the run ---- */

/* Rows of events: the modes entered, through the logger (logEvents). */
static int log_event_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)values;
    slave *s = user;
    if (kind != HYDAE_ROW_EVENT_RIGHT || !(s->logging_on && s->log_events))
        return 0;
    char modes[1024];
    size_t n = 0;
    modes[0] = '\0';
    for (int c = 0; c < s->model->n_charts && n < sizeof modes; c++)
        n += (size_t)snprintf(modes + n, sizeof modes - n, "%s%s = %s", c ? ", " : "",
                              s->model->charts[c]->name, hydae_sim_mode_name(s->sim, c));
    say(s, fmi2OK, "logEvents", "event at t = %.17g: %s", t, modes);
    return 0;
}

static void hold_values(slave *s)
{
    for (int c = 0; c < s->model->n_columns; c++)
        if (!isnan(s->row[c]))
            s->held[c] = s->row[c];
}

static int configure_run(slave *s)
{
    hydae_sim *sim = s->sim;
    char *warnings = NULL;
    size_t warnings_size = 0;
    FILE *w = open_memstream(&warnings, &warnings_size);
    int status = hy_lang_experiment_apply(&s->experiment, sim, w);
    if (w)
        fclose(w);
    if (status) {
        fail(s, "the model's experiment block: %s", warnings ? warnings : hydae_sim_errmsg(sim));
        free(warnings);
        return -1;
    }
    free(warnings);
    /* Without a stop time, a run may go up to 1e9 s past its start. */
    s->t_end = s->has_stop ? s->t_stop : s->t_start + 1e9;
    if (hydae_sim_set_time(sim, s->t_start, s->t_end)
        || hydae_sim_set_output_interval(sim, s->t_end - s->t_start)
        || (s->has_tolerance && hydae_sim_set_tolerances(sim, s->tolerance, 1e-2 * s->tolerance))
        || hydae_sim_add_row_sink(sim, log_event_row, s))
        return fail(s, "fmi2SetupExperiment: %s", hydae_sim_errmsg(sim)), -1;
    return 0;
}

/* The run at t_start: consistent initial values, the events of t0. */
static int start_run(slave *s)
{
    if (s->sim)
        return 0;
    int status = 0;
    s->sim = hydae_sim_create(s->model, &status);
    if (!s->sim)
        return fail(s, "%s", hydae_model_errmsg(s->model)), -1;
    if (configure_run(s)) {
        free_run(s);
        return -1;
    }
    if (hydae_sim_advance(s->sim, s->t_start, s->row) != 0) {
        fail(s, "initialisation at t = %.17g: %s", s->t_start, hydae_sim_errmsg(s->sim));
        free_run(s);
        return -1;
    }
    hold_values(s);
    s->t = s->t_start;
    return 0;
}

/* ---- the common functions (FMI 2.0.4 section 2.1) ---- */

FMI2_EXPORT const char *fmi2GetTypesPlatform(void)
{
    return "default";
}

FMI2_EXPORT const char *fmi2GetVersion(void)
{
    return "2.0";
}

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn,
                                           size_t nCategories, const fmi2String categories[])
{
    slave *s = c;
    if (!allowed(s, "fmi2SetDebugLogging", ANY_STATE))
        return fmi2Error;
    s->logging_on = loggingOn != 0;
    s->log_events = nCategories == 0;
    for (size_t i = 0; i < nCategories; i++) {
        if (categories[i] && strcmp(categories[i], "logEvents") == 0)
            s->log_events = 1;
        else if (!categories[i] || strcmp(categories[i], "logStatusError") != 0)
            return fail(s, "fmi2SetDebugLogging: unknown log category \"%s\" (there are "
                        "logEvents and logStatusError)", categories[i] ? categories[i] : "(null)");
    }
    return fmi2OK;
}

static slave *new_slave(const char *name, const fmi2CallbackFunctions *callbacks,
                        fmi2Boolean loggingOn)
{
    slave *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->callbacks = *callbacks;
    s->name = hy_strdup(name ? name : "");
    s->logging_on = loggingOn != 0;
    s->log_events = 1;
    s->state = SLAVE_INSTANTIATED;
    return s;
}

/* Read the model file, check the GUID, compile. */
static int load_model(slave *s, const char *guid, const char *resource_uri)
{
    s->path = resource_path(resource_uri);
    if (!s->path)
        return fail(s, "fmuResourceLocation \"%s\" is no file URI (file:///...)",
                    resource_uri ? resource_uri : "(null)"), -1;
    char *diagnostics = NULL;
    size_t diagnostics_size = 0;
    FILE *diag = open_memstream(&diagnostics, &diagnostics_size);
    char *text = hy_lang_read_file(s->path, &s->text_size, diag);
    if (diag)
        fclose(diag);
    if (!text) {
        fail(s, "the model file of the FMU: %s", diagnostics ? diagnostics : s->path);
        free(diagnostics);
        return -1;
    }
    free(diagnostics);
    s->text = malloc(s->text_size + 1);
    if (s->text)
        memcpy(s->text, text, s->text_size + 1);
    hy_free(text);
    if (!s->text)
        return fail(s, "out of memory"), -1;
    char expected[39];
    hy_export_guid(s->text, s->text_size, expected);
    if (!guid || strcmp(guid, expected) != 0)
        return fail(s, "fmuGUID \"%s\" does not match the model file %s (its GUID is %s)",
                    guid ? guid : "(null)", s->path, expected), -1;
    return compile_model(s);
}

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                          fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)visible;
    if (!functions)
        return NULL;
    slave *s = new_slave(instanceName, functions, loggingOn);
    if (!s || !s->name) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                              "logStatusError", "out of memory");
        free_slave(s);
        return NULL;
    }
    if (fmuType != fmi2CoSimulation) {
        fail(s, "this FMU is for Co-Simulation only (fmuType %d asked)", (int)fmuType);
        free_slave(s);
        return NULL;
    }
    if (load_model(s, fmuGUID, fmuResourceLocation)) {
        free_slave(s);
        return NULL;
    }
    return s;
}

FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    free_slave(c);
}

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                           fmi2Real tolerance, fmi2Real startTime,
                                           fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    slave *s = c;
    if (!allowed(s, "fmi2SetupExperiment", 1u << SLAVE_INSTANTIATED))
        return fmi2Error;
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime > startTime))
        || (toleranceDefined && !(tolerance > 0.0)))
        return fail(s, "fmi2SetupExperiment: start %g, stop %g (defined: %d), tolerance %g "
                    "(defined: %d): the stop time must follow the start, the tolerance be > 0",
                    startTime, stopTime, stopTimeDefined, tolerance, toleranceDefined);
    s->t_start = startTime;
    s->has_stop = stopTimeDefined != 0;
    s->t_stop = stopTime;
    s->has_tolerance = toleranceDefined != 0;
    s->tolerance = tolerance;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    slave *s = c;
    if (!allowed(s, "fmi2EnterInitializationMode", 1u << SLAVE_INSTANTIATED))
        return fmi2Error;
    s->state = SLAVE_INITIALIZATION;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    slave *s = c;
    if (!allowed(s, "fmi2ExitInitializationMode", 1u << SLAVE_INITIALIZATION))
        return fmi2Error;
    if (start_run(s)) {
        s->state = SLAVE_ERROR;
        return fmi2Error;
    }
    s->state = SLAVE_STEPPING;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    slave *s = c;
    if (!allowed(s, "fmi2Terminate", 1u << SLAVE_STEPPING))
        return fmi2Error;
    s->state = SLAVE_TERMINATED;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    slave *s = c;
    if (!allowed(s, "fmi2Reset", ANY_STATE))
        return fmi2Error;
    /* The parameters back to the model file's values: compile it again. */
    free_model(s);
    if (compile_model(s)) {
        s->state = SLAVE_ERROR;
        return fmi2Error;
    }
    s->state = SLAVE_INSTANTIATED;
    s->t_start = 0.0;
    s->has_stop = s->has_tolerance = 0;
    return fmi2OK;
}

/* ---- values ---- */

static const hy_export_var *find_var(slave *s, fmi2ValueReference vr, const char *function)
{
    if (vr >= s->vr_limit || s->var_of_vr[vr] < 0) {
        fail(s, "%s: no variable has value reference %u", function, vr);
        return NULL;
    }
    return &s->vars[s->var_of_vr[vr]];
}

/* The 1-based index of the active mode of chart c (its initial mode before
** the run). */
static int mode_number(const slave *s, int c)
{
    const hydae_chart *chart = s->model->charts[c];
    const char *name = s->sim ? hydae_sim_mode_name(s->sim, c) : NULL;
    const hydae_mode *mode = chart->initial;
    for (int i = 0; name && i < chart->n_modes; i++)
        if (strcmp(chart->modes[i]->name, name) == 0)
            mode = chart->modes[i];
    return mode ? mode->index + 1 : 0;
}

/* Outputs asked before the end of initialisation: the run starts. */
static int values_ready(slave *s, const char *function)
{
    if (s->state == SLAVE_INITIALIZATION && !s->sim && start_run(s))
        return 0;
    if (!s->sim && s->state != SLAVE_ERROR && s->state != SLAVE_TERMINATED) {
        fail(s, "%s: outputs have values from initialisation mode on", function);
        return 0;
    }
    return 1;
}

FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[])
{
    slave *s = c;
    if (!allowed(s, "fmi2GetReal", ANY_STATE))
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const hy_export_var *v = find_var(s, vr[i], "fmi2GetReal");
        if (!v)
            return fmi2Error;
        if (v->kind == HY_EXPORT_MODE)
            return fail(s, "fmi2GetReal: %u is mode(%s), an Integer", vr[i], v->name);
        if (v->kind != HY_EXPORT_OUTPUT)
            value[i] = s->model->globals[v->index].value;
        else if (values_ready(s, "fmi2GetReal"))
            value[i] = s->held[v->index];
        else
            return fmi2Error;
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Integer value[])
{
    slave *s = c;
    if (!allowed(s, "fmi2GetInteger", ANY_STATE & ~(1u << SLAVE_INSTANTIATED)))
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const hy_export_var *v = find_var(s, vr[i], "fmi2GetInteger");
        if (!v)
            return fmi2Error;
        if (v->kind != HY_EXPORT_MODE)
            return fail(s, "fmi2GetInteger: %u is %s, a Real", vr[i], v->name);
        value[i] = mode_number(s, v->index);
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[])
{
    slave *s = c;
    if (!allowed(s, "fmi2SetReal", BEFORE_RUN))
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const hy_export_var *v = find_var(s, vr[i], "fmi2SetReal");
        if (!v)
            return fmi2Error;
        if (v->kind != HY_EXPORT_PARAMETER)
            return fail(s, "fmi2SetReal: %s (value reference %u) is no parameter: only "
                        "parameters are set", v->name, vr[i]);
        if (hydae_model_set_param(s->model, v->name, value[i]) != 0)
            return fail(s, "fmi2SetReal: %s", hydae_model_errmsg(s->model));
        free_run(s); /* a run started to answer fmi2GetReal sees the new value */
    }
    return fmi2OK;
}

static fmi2Status unsupported(fmi2Component c, const char *function, const char *why)
{
    slave *s = c;
    if (!allowed(s, function, ANY_STATE))
        return fmi2Error;
    return fail(s, "%s: %s", function, why);
}

#define NO_VARIABLES "the FMU has no variables of this type"

FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Boolean value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetBoolean", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, fmi2String value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetString", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Integer value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2SetInteger", "the Integer variables are outputs");
}

FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Boolean value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetBoolean", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, const fmi2String value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetString", NO_VARIABLES);
}

/* ---- what the description says the FMU cannot do ---- */

#define NO_STATE "canGetAndSetFMUstate is false"

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    (void)state;
    return unsupported(c, "fmi2GetFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    (void)state;
    return unsupported(c, "fmi2SetFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    (void)state;
    return unsupported(c, "fmi2FreeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state,
                                                  size_t *size)
{
    (void)state, (void)size;
    return unsupported(c, "fmi2SerializedFMUstateSize", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state,
                                             fmi2Byte serialized[], size_t size)
{
    (void)state, (void)serialized, (void)size;
    return unsupported(c, "fmi2SerializeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serialized[],
                                               size_t size, fmi2FMUstate *state)
{
    (void)serialized, (void)size, (void)state;
    return unsupported(c, "fmi2DeSerializeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(
    fmi2Component c, const fmi2ValueReference unknown[], size_t n_unknown,
    const fmi2ValueReference known[], size_t n_known, const fmi2Real seed[],
    fmi2Real sensitivity[])
{
    (void)unknown, (void)n_unknown, (void)known, (void)n_known, (void)seed, (void)sensitivity;
    return unsupported(c, "fmi2GetDirectionalDerivative", "providesDirectionalDerivative is false");
}

FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c,
                                                   const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2SetRealInputDerivatives", "the FMU has no inputs");
}

FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                                    const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[], fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2GetRealOutputDerivatives",
                                  "maxOutputDerivativeOrder is 0");
}

/* ---- Co-Simulation (FMI 2.0.4 section 4.2.2) ---- */

FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize,
                                  fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    slave *s = c;
    if (!allowed(s, "fmi2DoStep", 1u << SLAVE_STEPPING))
        return fmi2Error;
    double t_target = currentCommunicationPoint + communicationStepSize;
    double tol = 1e-12 * fmax(1.0, fabs(s->t));
    if (!(fabs(currentCommunicationPoint - s->t) <= tol) || !(communicationStepSize >= 0.0))
        return fail(s, "fmi2DoStep(%.17g, %.17g): the FMU stands at t = %.17g and steps forward "
                    "from there", currentCommunicationPoint, communicationStepSize, s->t);
    if (s->run_ended || t_target > s->t_end + tol)
        return fail(s, "fmi2DoStep to t = %.17g: past the %s %.17g", t_target,
                    s->has_stop ? "stop time of fmi2SetupExperiment" : "end of a run without "
                    "stop time, t_start + 1e9 =", s->t_end);
    t_target = fmin(t_target, s->t_end);
    int status = hydae_sim_advance(s->sim, t_target, s->row);
    if (status) {
        s->state = SLAVE_ERROR;
        return fail(s, "fmi2DoStep from t = %.17g to %.17g: %s", currentCommunicationPoint,
                    t_target, hydae_sim_errmsg(s->sim));
    }
    hold_values(s);
    s->t = t_target;
    s->run_ended = t_target >= s->t_end;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component c)
{
    return unsupported(c, "fmi2CancelStep", "fmi2DoStep never returns fmi2Pending");
}

FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind kind,
                                     fmi2Status *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetStatus", "fmi2DoStep never returns fmi2Pending");
}

FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind,
                                         fmi2Real *value)
{
    slave *s = c;
    if (s && kind == fmi2LastSuccessfulTime && value) {
        *value = s->t;
        return fmi2OK;
    }
    return unsupported(c, "fmi2GetRealStatus", "only fmi2LastSuccessfulTime is a Real status");
}

FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind kind,
                                            fmi2Integer *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetIntegerStatus", "there is no Integer status");
}

FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind,
                                            fmi2Boolean *value)
{
    slave *s = c;
    if (s && kind == fmi2Terminated && value) {
        *value = 0; /* the model never asks to end the run */
        return fmi2OK;
    }
    return unsupported(c, "fmi2GetBooleanStatus", "only fmi2Terminated is a Boolean status");
}

FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind kind,
                                           fmi2String *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetStringStatus", "fmi2DoStep never returns fmi2Pending");
}
