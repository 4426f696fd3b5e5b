/*
** An instance of an exported FMU (slave.h), the part common to FMI 2.0
** and 3.0: the model file found in the FMU's resources compiled with
** hydae's compiler (its GUID, a hash of its text, checked first), the run
** started at the end of initialisation and advanced to each communication
** point with hydae_sim_advance, events and mode changes inside the step
** included.
**
** Values (docs/fmi.md, "Export"): parameters are set until the end of
** initialisation; an output is the value of the active configuration,
** and a variable the active modes do not have keeps the last value it
** had (0 before it had one), since FMI has no "no value"; the mode
** variables give the active mode of each chart. Every failure is an error
** with a message through the logger; nothing here aborts.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "slave.h"

#include "lang/build.h"
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- instances and messages ---- */

slave *slave_new(const char *name, slave_log_fn log, const void *api, size_t api_size,
                 int logging_on)
{
    slave *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->name = hy_strdup(name ? name : "");
    s->api = malloc(api_size > 0 ? api_size : 1);
    if (!s->name || !s->api) {
        hy_free(s->name);
        free(s->api);
        free(s);
        return NULL;
    }
    memcpy(s->api, api, api_size);
    s->log = log;
    s->logging_on = logging_on != 0;
    s->log_events = 1;
    s->state = SLAVE_INSTANTIATED;
    return s;
}

static void say_v(const slave *s, int status, const char *category, const char *fmt,
                  va_list ap)
{
    if (!s || !s->log)
        return;
    if (status == SLAVE_OK && !(s->logging_on && s->log_events))
        return;
    char text[4096];
    vsnprintf(text, sizeof text, fmt, ap);
    s->log(s, status, category, text);
}

void slave_say(const slave *s, int status, const char *category, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_v(s, status, category, fmt, ap);
    va_end(ap);
}

int slave_fail(slave *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_v(s, SLAVE_ERROR, "logStatusError", fmt, ap);
    va_end(ap);
    return SLAVE_ERROR;
}

int slave_allowed(slave *s, const char *function, unsigned mask)
{
    if (!s)
        return 0;
    if (mask & (1u << s->state))
        return 1;
    static const char *const names[] = { "instantiated", "initialization mode", "step mode",
                                         "terminated", "error" };
    slave_fail(s, "%s is not allowed in state %s", function, names[s->state]);
    return 0;
}

int slave_set_debug_logging(slave *s, int on, size_t n, const char *const categories[],
                            const char *function)
{
    if (!slave_allowed(s, function, SLAVE_ANY_STATE))
        return SLAVE_ERROR;
    s->logging_on = on != 0;
    s->log_events = n == 0;
    for (size_t i = 0; i < n; i++) {
        if (categories[i] && strcmp(categories[i], "logEvents") == 0)
            s->log_events = 1;
        else if (!categories[i] || strcmp(categories[i], "logStatusError") != 0)
            return slave_fail(s, "%s: unknown log category \"%s\" (there are logEvents and "
                              "logStatusError)", function,
                              categories[i] ? categories[i] : "(null)");
    }
    return SLAVE_OK;
}

/* ---- the model file ---- */

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
        slave_fail(s, "%s does not compile (%d error%s):\n%s", s->path, n_errors,
             n_errors == 1 ? "" : "s", diagnostics ? diagnostics : "");
        free(diagnostics);
        return -1;
    }
    free(diagnostics);
    s->model = hy_lang_unit_model(unit);
    if (hydae_model_check(s->model) != 0)
        return slave_fail(s, "%s: %s", s->path, hydae_model_errmsg(s->model)), -1;
    s->n_vars = hy_export_n_vars(s->model);
    s->vr_limit = hy_export_vr_limit(s->model);
    size_t n_cols = (size_t)(s->model->n_columns > 0 ? s->model->n_columns : 1);
    s->vars = calloc((size_t)s->n_vars + 1, sizeof *s->vars);
    s->var_of_vr = malloc(sizeof(int) * (s->vr_limit + 1));
    s->row = calloc(n_cols, sizeof(double));
    s->held = calloc(n_cols, sizeof(double));
    if (!s->vars || !s->var_of_vr || !s->row || !s->held)
        return slave_fail(s, "out of memory"), -1;
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

void slave_free(slave *s)
{
    if (!s)
        return;
    free_model(s);
    hy_free(s->text);
    hy_free(s->path);
    hy_free(s->name);
    free(s->api);
    free(s);
}

int slave_load(slave *s, const char *token, const char *model_path)
{
    s->path = hy_strdup(model_path);
    if (!s->path)
        return slave_fail(s, "out of memory"), -1;
    char *diagnostics = NULL;
    size_t diagnostics_size = 0;
    FILE *diag = open_memstream(&diagnostics, &diagnostics_size);
    s->text = hy_lang_read_file(s->path, &s->text_size, diag);
    if (diag)
        fclose(diag);
    if (!s->text) {
        slave_fail(s, "the model file of the FMU: %s", diagnostics ? diagnostics : s->path);
        free(diagnostics);
        return -1;
    }
    free(diagnostics);
    char expected[39];
    hy_export_guid(s->text, s->text_size, expected);
    if (!token || strcmp(token, expected) != 0)
        return slave_fail(s, "the GUID or instantiation token \"%s\" does not match the model "
                          "file %s (its GUID is %s)", token ? token : "(null)", s->path,
                          expected), -1;
    return compile_model(s);
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
    slave_say(s, SLAVE_OK, "logEvents", "event at t = %.17g: %s", t, modes);
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
        slave_fail(s, "the model's experiment block: %s",
                   warnings ? warnings : hydae_sim_errmsg(sim));
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
        return slave_fail(s, "fmi2SetupExperiment: %s", hydae_sim_errmsg(sim)), -1;
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
        return slave_fail(s, "%s", hydae_model_errmsg(s->model)), -1;
    if (configure_run(s)) {
        free_run(s);
        return -1;
    }
    if (hydae_sim_advance(s->sim, s->t_start, s->row) != 0) {
        slave_fail(s, "initialisation at t = %.17g: %s", s->t_start, hydae_sim_errmsg(s->sim));
        free_run(s);
        return -1;
    }
    hold_values(s);
    s->t = s->t_start;
    return 0;
}

/* ---- the calls ---- */

int slave_setup(slave *s, int tolerance_defined, double tolerance, double t_start,
                int stop_defined, double t_stop, const char *function)
{
    if (!isfinite(t_start) || (stop_defined && !(t_stop > t_start))
        || (tolerance_defined && !(tolerance > 0.0)))
        return slave_fail(s, "%s: start %g, stop %g (defined: %d), tolerance %g (defined: %d): "
                          "the stop time must follow the start, the tolerance be > 0", function,
                          t_start, t_stop, stop_defined, tolerance, tolerance_defined);
    s->t_start = t_start;
    s->has_stop = stop_defined != 0;
    s->t_stop = t_stop;
    s->has_tolerance = tolerance_defined != 0;
    s->tolerance = tolerance;
    return SLAVE_OK;
}

int slave_exit_initialization(slave *s)
{
    if (start_run(s)) {
        s->state = SLAVE_FAILED;
        return SLAVE_ERROR;
    }
    s->state = SLAVE_STEPPING;
    return SLAVE_OK;
}

int slave_reset(slave *s)
{
    /* The parameters back to the model file's values: compile it again. */
    free_model(s);
    if (compile_model(s)) {
        s->state = SLAVE_FAILED;
        return SLAVE_ERROR;
    }
    s->state = SLAVE_INSTANTIATED;
    s->t_start = 0.0;
    s->has_stop = s->has_tolerance = 0;
    return SLAVE_OK;
}

int slave_do_step(slave *s, double t, double h, const char *function)
{
    double t_target = t + h;
    double tol = 1e-12 * fmax(1.0, fabs(s->t));
    if (!(fabs(t - s->t) <= tol) || !(h >= 0.0))
        return slave_fail(s, "%s(%.17g, %.17g): the FMU stands at t = %.17g and steps forward "
                          "from there", function, t, h, s->t);
    if (s->run_ended || t_target > s->t_end + tol)
        return slave_fail(s, "%s to t = %.17g: past the %s %.17g", function, t_target,
                          s->has_stop ? "stop time" : "end of a run without stop time, "
                          "t_start + 1e9 =", s->t_end);
    t_target = fmin(t_target, s->t_end);
    if (hydae_sim_advance(s->sim, t_target, s->row) != 0) {
        s->state = SLAVE_FAILED;
        return slave_fail(s, "%s from t = %.17g to %.17g: %s", function, t, t_target,
                          hydae_sim_errmsg(s->sim));
    }
    hold_values(s);
    s->t = t_target;
    s->run_ended = t_target >= s->t_end;
    return SLAVE_OK;
}

/* ---- values ---- */

static const hy_export_var *find_var(slave *s, uint32_t vr, const char *function)
{
    if (vr >= s->vr_limit || s->var_of_vr[vr] < 0) {
        slave_fail(s, "%s: no variable has value reference %u", function, (unsigned)vr);
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

/* Outputs asked for in initialisation mode: the run starts (a parameter
** set afterwards starts it again). */
static int values_ready(slave *s, const char *function)
{
    if (s->state == SLAVE_INITIALIZATION && !s->sim && start_run(s))
        return 0;
    if (!s->sim && s->state != SLAVE_FAILED && s->state != SLAVE_TERMINATED) {
        slave_fail(s, "%s: outputs have values from initialisation mode on", function);
        return 0;
    }
    return 1;
}

int slave_get_float(slave *s, const uint32_t vr[], size_t n, double values[],
                    const char *function)
{
    for (size_t i = 0; i < n; i++) {
        const hy_export_var *v = find_var(s, vr[i], function);
        if (!v)
            return SLAVE_ERROR;
        if (v->kind == HY_EXPORT_MODE)
            return slave_fail(s, "%s: %u is mode(%s), an integer", function, (unsigned)vr[i],
                              v->name);
        if (v->kind == HY_EXPORT_TIME)
            values[i] = s->sim ? s->t : s->t_start;
        else if (v->kind != HY_EXPORT_OUTPUT)
            values[i] = s->model->globals[v->index].value;
        else if (values_ready(s, function))
            values[i] = s->held[v->index];
        else
            return SLAVE_ERROR;
    }
    return SLAVE_OK;
}

int slave_get_modes(slave *s, const uint32_t vr[], size_t n, int32_t values[],
                    const char *function)
{
    for (size_t i = 0; i < n; i++) {
        const hy_export_var *v = find_var(s, vr[i], function);
        if (!v)
            return SLAVE_ERROR;
        if (v->kind != HY_EXPORT_MODE)
            return slave_fail(s, "%s: %u is %s, a real number", function, (unsigned)vr[i],
                              v->name);
        values[i] = mode_number(s, v->index);
    }
    return SLAVE_OK;
}

int slave_set_float(slave *s, const uint32_t vr[], size_t n, const double values[],
                    const char *function)
{
    for (size_t i = 0; i < n; i++) {
        const hy_export_var *v = find_var(s, vr[i], function);
        if (!v)
            return SLAVE_ERROR;
        if (v->kind != HY_EXPORT_PARAMETER && v->kind != HY_EXPORT_INPUT)
            return slave_fail(s, "%s: %s (value reference %u) is no parameter or input: only "
                              "they are set", function, v->name, (unsigned)vr[i]);
        if (hydae_model_set_param(s->model, v->name, values[i]) != 0)
            return slave_fail(s, "%s: %s", function, hydae_model_errmsg(s->model));
        if (s->state != SLAVE_STEPPING)
            free_run(s); /* a run started to answer a get sees the new value */
        else if (hydae_sim_set_param(s->sim, v->name, values[i]) != 0) /* tunable */
            return slave_fail(s, "%s: %s", function, hydae_sim_errmsg(s->sim));
    }
    return SLAVE_OK;
}
