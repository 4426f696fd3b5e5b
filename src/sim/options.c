/*
** The transient-solver settings by name: one table maps every name to its
** parser, range, default and meaning, shared by the command line, a model's
** experiment block and the <Param_Transient .../> XML element. The names
** and meanings are those of Param_Transient (seed 002); hydae's own names
** (t0, t_end, dt, rtol, atol, ...) sit beside them.
*/
#include "sim.h"

#include "linalg/linsol.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef int (*option_setter)(hydae_sim *s, const char *name, const char *text);

typedef struct hy_option {
    const char *name;
    const char *type;           /* "real", "integer", "TRUE|FALSE", "string" */
    const char *default_text;
    const char *meaning;
    option_setter set;
} hy_option;

static int bad_value(hydae_sim *s, const char *name, const char *text, const char *want)
{
    hy_sim_fail(s, "setting %s: '%s' is not %s", name, text, want);
    return HYDAE_ERR_ARG;
}

/* A whole-string number; "inf" accepted where allow_inf. */
static int parse_real(hydae_sim *s, const char *name, const char *text, double lo,
                      int lo_open, int allow_inf, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    while (end && isspace((unsigned char)*end))
        end++;
    if (!text[0] || !end || *end != '\0' || errno == ERANGE || isnan(v)
        || (!allow_inf && isinf(v)))
        return bad_value(s, name, text, allow_inf ? "a number" : "a finite number");
    if (lo_open ? !(v > lo) : !(v >= lo)) {
        char want[64];
        hy_format(want, sizeof want, "a number %s %g", lo_open ? ">" : ">=", lo);
        return bad_value(s, name, text, want);
    }
    *out = v;
    return 0;
}

static int parse_int(hydae_sim *s, const char *name, const char *text, long lo, long hi,
                     long *out)
{
    double v;
    int status = parse_real(s, name, text, (double)lo, 0, 0, &v);
    if (status)
        return status;
    if (v != floor(v) || v > (double)hi) {
        char want[64];
        hy_format(want, sizeof want, "a whole number from %ld to %ld", lo, hi);
        return bad_value(s, name, text, want);
    }
    *out = (long)v;
    return 0;
}

static int parse_bool(hydae_sim *s, const char *name, const char *text, int *out)
{
    if (strcmp(text, "TRUE") == 0 || strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
        *out = 1;
        return 0;
    }
    if (strcmp(text, "FALSE") == 0 || strcmp(text, "false") == 0 || strcmp(text, "0") == 0) {
        *out = 0;
        return 0;
    }
    return bad_value(s, name, text, "TRUE or FALSE");
}

/* ---- setters ---- */

#define REAL_SETTER(fn, field, lo, lo_open, allow_inf)                          \
    static int fn(hydae_sim *s, const char *name, const char *text)            \
    {                                                                          \
        double v;                                                              \
        int status = parse_real(s, name, text, lo, lo_open, allow_inf, &v);    \
        if (!status)                                                           \
            s->set.field = v;                                                      \
        return status;                                                         \
    }

#define INT_SETTER(fn, field, lo, hi)                                          \
    static int fn(hydae_sim *s, const char *name, const char *text)            \
    {                                                                          \
        long v;                                                                \
        int status = parse_int(s, name, text, lo, hi, &v);                     \
        if (!status)                                                           \
            s->set.field = (int)v;                                                 \
        return status;                                                         \
    }

#define BOOL_SETTER(fn, field)                                                 \
    static int fn(hydae_sim *s, const char *name, const char *text)            \
    {                                                                          \
        int v;                                                                 \
        int status = parse_bool(s, name, text, &v);                            \
        if (!status)                                                           \
            s->set.field = v;                                                      \
        return status;                                                         \
    }

REAL_SETTER(set_t0, t0, -INFINITY, 0, 0)
REAL_SETTER(set_t_end, t_end, -INFINITY, 0, 0)
REAL_SETTER(set_dt, dt_out, 0.0, 1, 0)
REAL_SETTER(set_h_max, h_max, 0.0, 1, 1)
REAL_SETTER(set_h_min, h_min, 0.0, 0, 0)
REAL_SETTER(set_h0, h0, 0.0, 0, 0)
REAL_SETTER(set_h0_max, h0_max, 0.0, 1, 0)
REAL_SETTER(set_rel_abs_tol_ratio, rel_abs_tol_ratio, 0.0, 1, 0)
REAL_SETTER(set_vel_tol_factor, vel_tol_factor, 0.0, 1, 0)
REAL_SETTER(set_dae_alg_tol_factor, dae_alg_tol_factor, 0.0, 1, 0)
REAL_SETTER(set_dae_constr_tol, constr_tol, 0.0, 1, 0)
REAL_SETTER(set_dt_min, dt_min, 0.0, 1, 0)
REAL_SETTER(set_zeno_window, zeno_window, 0.0, 1, 0)
INT_SETTER(set_zeno_events, zeno_events, 2, 1000000)
INT_SETTER(set_guard_samples, guard_samples, 0, 100)

static int set_zeno_policy(hydae_sim *s, const char *name, const char *text)
{
    if (strcmp(text, "stop") == 0)
        s->set.zeno_rest = 0;
    else if (strcmp(text, "rest") == 0)
        s->set.zeno_rest = 1;
    else
        return bad_value(s, name, text, "stop or rest");
    return 0;
}
INT_SETTER(set_max_order, max_order, 1, 12)
INT_SETTER(set_corrector_maxit, corrector_maxit, 1, 100)
INT_SETTER(set_corrector_minit, corrector_minit, 1, 100)
INT_SETTER(set_jacob_eval, jacob_eval, 0, 1000)
INT_SETTER(set_jacob_init, jacob_init, 0, 1000)
INT_SETTER(set_cascade_limit, cascade_limit, 1, 1000000)
BOOL_SETTER(set_vel_ctrl, vel_ctrl)
BOOL_SETTER(set_interpolation, interpolation)

static int set_tolerance(hydae_sim *s, const char *name, const char *text, double *field)
{
    double v;
    int status = parse_real(s, name, text, 0.0, 1, 0, &v);
    if (!status && !(v < 1.0))
        status = bad_value(s, name, text, "a number below 1");
    if (!status)
        *field = v;
    return status;
}

static int set_integr_tol(hydae_sim *s, const char *name, const char *text)
{
    return set_tolerance(s, name, text, &s->set.integr_tol);
}

static int set_rtol(hydae_sim *s, const char *name, const char *text)
{
    int status = set_tolerance(s, name, text, &s->set.rtol);
    if (!status)
        s->set.integr_tol = 0.0; /* explicit rtol/atol replace integr_tol */
    return status;
}

static int set_atol(hydae_sim *s, const char *name, const char *text)
{
    double v;
    int status = parse_real(s, name, text, 0.0, 1, 0, &v);
    if (!status) {
        s->set.atol = v;
        s->set.integr_tol = 0.0;
    }
    return status;
}

static int set_dae_index(hydae_sim *s, const char *name, const char *text)
{
    long v;
    int status = parse_int(s, name, text, 1, 3, &v);
    if (!status && v == 2)
        status = bad_value(s, name, text, "1 (SI1) or 3 (I3)");
    if (!status)
        s->set.dae_index = (int)v;
    return status;
}

static int set_eval_expiry(hydae_sim *s, const char *name, const char *text)
{
    long v;
    int status = parse_int(s, name, text, 0, 1000000000L, &v);
    if (!status)
        s->set.eval_expiry = v;
    return status;
}

static int set_max_steps(hydae_sim *s, const char *name, const char *text)
{
    long v;
    int status = parse_int(s, name, text, 1, 1000000000000L, &v);
    if (!status)
        s->set.max_steps = v;
    return status;
}

static int set_integrator_type(hydae_sim *s, const char *name, const char *text)
{
    (void)name;
    return hydae_sim_set_integrator(s, text);
}

static int set_output(hydae_sim *s, const char *name, const char *text)
{
    if (strcmp(text, "grid") == 0)
        s->set.output_steps = 0;
    else if (strcmp(text, "steps") == 0)
        s->set.output_steps = 1;
    else
        return bad_value(s, name, text, "grid or steps");
    return 0;
}

static int set_linear_solver(hydae_sim *s, const char *name, const char *text)
{
    static const hy_ls_kind kinds[] = { HY_LS_AUTO, HY_LS_DENSE, HY_LS_BAND, HY_LS_KLU };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(text, hy_ls_kind_name(kinds[k])) == 0) {
            if (!hy_ls_available(kinds[k])) {
                hy_sim_fail(s, "setting %s: this hydae was built without SuiteSparse KLU "
                            "(install libsuitesparse-dev and rebuild)", name);
                return HYDAE_ERR_ARG;
            }
            s->set.linear_solver = (int)kinds[k];
            return 0;
        }
    return bad_value(s, name, text, "auto, dense, band or klu");
}

static int set_radau_order(hydae_sim *s, const char *name, const char *text)
{
    static const char *const names[] = { "auto", "5", "9", "13" };
    static const int orders[] = { 0, 5, 9, 13 };
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++)
        if (strcmp(text, names[k]) == 0) {
            s->set.radau_order = orders[k];
            return 0;
        }
    return bad_value(s, name, text, "auto, 5, 9 or 13");
}

static const hy_option options[] = {
    /* Param_Transient (seed 002). */
    { "integrator_type", "string", "DSTIFF",
      "the integrator: DSTIFF (BDF for DAEs), or one of `hydae solvers`", set_integrator_type },
    { "integr_tol", "real", "(unset)",
      "error tolerance: RTOL = rel_abs_tol_ratio * integr_tol * scale, ATOL = integr_tol * "
      "scale, scale 1 for positions and differential states, vel_tol_factor for velocities, "
      "dae_alg_tol_factor for algebraic states (seed 002, Table 1); replaces rtol/atol",
      set_integr_tol },
    { "h_max", "real", "inf", "largest step the integrator may take", set_h_max },
    { "h_min", "real", "0", "smallest step; below it the run fails", set_h_min },
    { "h0_max", "real", "(none)", "largest first step (caps the automatic choice)", set_h0_max },
    { "vel_tol_factor", "real", "1000", "tolerance scale of velocity states (with integr_tol)",
      set_vel_tol_factor },
    { "rel_abs_tol_ratio", "real", "1",
      "relative tolerance = rel_abs_tol_ratio * integr_tol (with integr_tol)",
      set_rel_abs_tol_ratio },
    { "max_order", "integer", "the method's",
      "largest order: 1-5 DSTIFF, VSTIFF; 1-7 MSTIFF; 1-12 ABAM; none for RADAU, RK45, RK853, RK4",
      set_max_order },
    { "dae_alg_tol_factor", "real", "1000",
      "tolerance scale of algebraic states and Lagrange multipliers (with integr_tol)",
      set_dae_alg_tol_factor },
    { "dae_index", "integer", "3",
      "formulation of mechanical modes with DSTIFF: 3 (I3) or 1 (SI1); with an ODE "
      "integrator they take the ODE form by coordinate partitioning", set_dae_index },
    { "dae_constr_tol", "real", "(off)",
      "the corrector converges only when every algebraic equation's residual is below it; "
      "mechanical modes: the constraints' tolerance when projecting and in the ODE form "
      "(1e-10 when off)", set_dae_constr_tol },
    { "dae_corrector_maxit", "integer", "4", "corrector iterations per step attempt",
      set_corrector_maxit },
    { "dae_corrector_minit", "integer", "1",
      "corrector iterations before the divergence test applies", set_corrector_minit },
    { "dae_vel_ctrl", "TRUE|FALSE", "TRUE",
      "FALSE takes velocity states out of the local error test", set_vel_ctrl },
    { "dae_jacob_eval", "integer", "0",
      "new Jacobian at corrector iteration M when M mod dae_jacob_eval = 0 (0: automatic)",
      set_jacob_eval },
    { "dae_eval_expiry", "integer", "0",
      "steps after a (re)start during which dae_jacob_eval/dae_jacob_init apply (0: always)",
      set_eval_expiry },
    { "dae_jacob_init", "integer", "0",
      "new Jacobian at corrector iteration M when M < dae_jacob_init (0: automatic)",
      set_jacob_init },
    { "dae_interpolation", "TRUE|FALSE", "TRUE",
      "TRUE: interpolate at output points; FALSE: step exactly onto them",
      set_interpolation },
    /* hydae's own. */
    { "t0", "real", "0", "start time", set_t0 },
    { "t_end", "real", "10", "stop time", set_t_end },
    { "dt", "real", "(t_end - t0)/500", "output interval", set_dt },
    { "rtol", "real", "1e-6", "relative tolerance, all variables (replaces integr_tol)",
      set_rtol },
    { "atol", "real", "1e-8", "absolute tolerance, all variables (replaces integr_tol)",
      set_atol },
    { "h0", "real", "0 (automatic)", "first step", set_h0 },
    { "output", "grid|steps", "grid", "rows on the uniform grid, or at every step",
      set_output },
    { "cascade_limit", "integer", "100", "updates of one discrete phase before the run stops",
      set_cascade_limit },
    { "zeno_events", "integer", "100",
      "event instants within zeno_window that mean chattering or Zeno behaviour",
      set_zeno_events },
    { "zeno_window", "real", "1e-9 max(1,|t|)", "the time window of zeno_events",
      set_zeno_window },
    { "zeno_policy", "stop|rest", "stop",
      "on chattering or Zeno behaviour: stop with a message, or enter the chart's resting "
      "mode (hydae_chart_set_resting_mode)", set_zeno_policy },
    { "max_steps", "integer", "50000000", "steps a run may take", set_max_steps },
    { "linear_solver", "auto|dense|band|klu", "auto",
      "solver of the Newton iteration matrices (DSTIFF, VSTIFF, MSTIFF, consistent "
      "initialisation): auto takes dense for small or patternless systems, band when the "
      "Jacobian pattern (hydae_mode_set_jacobian_pattern) is banded, else KLU (sparse LU)",
      set_linear_solver },
    { "guard_samples", "integer", "3",
      "interior points of each step where the guards and their time derivatives are "
      "sampled; a guard whose derivative changes sign at most once between samples is never "
      "missed", set_guard_samples },
    { "dt_min", "real", "(off)",
      "a step that would fall below it is a jump of a variable that is no event variable: "
      "restart at t + dt_min with new consistent values (seed 000, sec. 4.3)", set_dt_min },
    { "radau_order", "auto|5|9|13", "auto",
      "RADAU's order: 5, 9 or 13 (Radau IIA with 3, 5, 7 stages) throughout, or auto: "
      "chosen per step from the Newton contraction (Hairer & Wanner 1999)", set_radau_order },
};

enum { N_OPTIONS = (int)(sizeof options / sizeof options[0]) };

int hydae_sim_set_option(hydae_sim *s, const char *name, const char *value)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!name || !value) {
        hy_sim_fail(s, "a setting needs a name and a value");
        return HYDAE_ERR_ARG;
    }
    for (int i = 0; i < N_OPTIONS; i++)
        if (strcmp(options[i].name, name) == 0)
            return options[i].set(s, name, value);
    hy_sim_fail(s, "no setting named '%s' (see `hydae settings`)", name);
    return HYDAE_ERR_ARG;
}

const char *hydae_option_name(int i)
{
    return i >= 0 && i < N_OPTIONS ? options[i].name : NULL;
}

const char *hydae_option_type(int i)
{
    return i >= 0 && i < N_OPTIONS ? options[i].type : NULL;
}

const char *hydae_option_default(int i)
{
    return i >= 0 && i < N_OPTIONS ? options[i].default_text : NULL;
}

const char *hydae_option_meaning(int i)
{
    return i >= 0 && i < N_OPTIONS ? options[i].meaning : NULL;
}

/* ---- defaults and the setters of include/hydae.h ---- */

void hy_settings_default(hy_settings *set)
{
    memset(set, 0, sizeof *set);
    set->method = &hy_dstiff;
    set->t0 = 0.0;
    set->t_end = 10.0;
    set->dt_out = 0.0;
    set->rtol = 1e-6;
    set->atol = 1e-8;
    set->h_max = INFINITY;
    set->max_order = 0; /* the method's largest */
    set->cascade_limit = 100;
    set->rel_abs_tol_ratio = 1.0;
    set->vel_tol_factor = 1000.0;     /* seed 002, Table 1 */
    set->dae_alg_tol_factor = 1000.0; /* seed 002, Table 1 */
    set->vel_ctrl = 1;
    set->interpolation = 1;
    set->dae_index = 3;
    set->zeno_events = 100;
    set->guard_samples = 3;
    set->max_steps = 50000000;
}

#define HY_SETTING_ERROR(s, ...) (hy_sim_fail((s), __VA_ARGS__), HYDAE_ERR_ARG)

int hydae_sim_set_time(hydae_sim *s, double t0, double t_end)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!isfinite(t0) || !isfinite(t_end) || !(t_end > t0))
        return HY_SETTING_ERROR(s, "t_end (%g) must be finite and greater than t0 (%g)",
                                t_end, t0);
    s->set.t0 = t0;
    s->set.t_end = t_end;
    return 0;
}

int hydae_sim_set_output_interval(hydae_sim *s, double dt)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(dt > 0.0) || !isfinite(dt))
        return HY_SETTING_ERROR(s, "output interval (%g) must be positive and finite", dt);
    s->set.dt_out = dt;
    return 0;
}

int hydae_sim_set_tolerances(hydae_sim *s, double rtol, double atol)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(rtol > 0.0) || !(rtol < 1.0))
        return HY_SETTING_ERROR(s, "rtol (%g) must be in (0, 1)", rtol);
    if (!(atol > 0.0) || !isfinite(atol))
        return HY_SETTING_ERROR(s, "atol (%g) must be positive and finite", atol);
    s->set.rtol = rtol;
    s->set.atol = atol;
    s->set.integr_tol = 0.0;
    return 0;
}

int hydae_sim_set_step_limits(hydae_sim *s, double h_min, double h_max, double h0)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(h_min >= 0.0) || !isfinite(h_min))
        return HY_SETTING_ERROR(s, "h_min (%g) must be >= 0 and finite", h_min);
    if (!(h_max > 0.0))
        return HY_SETTING_ERROR(s, "h_max (%g) must be positive", h_max);
    if (!(h_max >= h_min))
        return HY_SETTING_ERROR(s, "h_min (%g) is greater than h_max (%g): no step size "
                                "satisfies both", h_min, h_max);
    if (!(h0 >= 0.0) || !isfinite(h0))
        return HY_SETTING_ERROR(s, "h0 (%g) must be >= 0 (0: automatic)", h0);
    s->set.h_min = h_min;
    s->set.h_max = h_max;
    s->set.h0 = h0;
    return 0;
}

int hydae_sim_set_max_order(hydae_sim *s, int max_order)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (max_order < 1 || max_order > 12)
        return HY_SETTING_ERROR(s, "max_order (%d) must be 1 to 12 (BDF methods use at most 5)",
                                max_order);
    s->set.max_order = max_order;
    return 0;
}

int hydae_sim_set_integrator(hydae_sim *s, const char *name)
{
    if (!s)
        return HYDAE_ERR_ARG;
    const hy_integrator_ops *method = hy_integrator_find(name);
    if (!method) {
        char known[256] = "";
        size_t used = 0;
        for (int i = 0; hy_integrators[i] && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     hy_integrators[i]->name);
        return HY_SETTING_ERROR(s, "no integrator '%s' (available: %s)", name ? name : "(null)",
                                known);
    }
    if (s->integ && method != s->integ_method) {
        s->integ_method->destroy(s->integ);
        s->integ = NULL;
    }
    s->set.method = method;
    return 0;
}

int hydae_sim_set_cascade_limit(hydae_sim *s, int limit)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (limit < 1)
        return HY_SETTING_ERROR(s, "cascade limit (%d) must be at least 1", limit);
    s->set.cascade_limit = limit;
    return 0;
}

int hydae_sim_set_output_steps(hydae_sim *s, int every_step)
{
    if (!s || (every_step != 0 && every_step != 1))
        return HYDAE_ERR_ARG;
    s->set.output_steps = every_step;
    return 0;
}

int hydae_sim_set_max_steps(hydae_sim *s, long max_steps)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (max_steps < 1)
        return HY_SETTING_ERROR(s, "max_steps (%ld) must be at least 1", max_steps);
    s->set.max_steps = max_steps;
    return 0;
}

int hydae_sim_set_debug_newton(hydae_sim *s, FILE *out)
{
    if (!s)
        return HYDAE_ERR_ARG;
    s->set.newton_debug = out;
    return 0;
}

double hy_base_atol(const hydae_sim *s)
{
    return s->set.integr_tol > 0.0 ? s->set.integr_tol : s->set.atol;
}

/* Tolerances of component i: the variable's own if set; else rtol/atol
** (atol times the variable's nominal value); or,
** when integr_tol is set, RTOL = rel_abs_tol_ratio integr_tol scale and
** ATOL = integr_tol scale with scale 1 for positions and differential
** states, vel_tol_factor for velocities, dae_alg_tol_factor for algebraic
** states and multipliers (seed 002, Table 1). */
void hy_set_component_tolerances(hydae_sim *s, const hy_var *var, int i)
{
    double rtol = s->set.rtol, atol = s->set.atol;
    if (s->set.integr_tol > 0.0) {
        double scale = var->kind == HYDAE_VELOCITY       ? s->set.vel_tol_factor
                       : hy_var_is_algebraic(var->kind) ? s->set.dae_alg_tol_factor
                                                        : 1.0;
        rtol = s->set.rel_abs_tol_ratio * s->set.integr_tol * scale;
        atol = s->set.integr_tol * scale;
    }
    double var_rtol = hy_var_rtol(s->model, var), var_atol = hy_var_atol(s->model, var);
    rtol = var_rtol > 0.0 ? var_rtol : rtol;
    /* A nominal value scales the run's atol (FMI 2.0.4 section 2.2.7,
    ** `nominal`; an action may change it, hydae_action_set_nominal); a
    ** variable's own atol is absolute. */
    atol = var_atol > 0.0 ? var_atol : atol * hy_sim_nominal(s, var);
    /* The first component's pair stands for all while the others have it
    ** too (bit for bit); the vectors are written from the first that
    ** differs (build_config starts with tol_uniform = -1). */
    if (s->tol_uniform < 0) {
        s->uniform_rtol = rtol;
        s->uniform_atol = atol;
        s->tol_uniform = 1;
    } else if (s->tol_uniform == 1 && (memcmp(&rtol, &s->uniform_rtol, sizeof rtol) != 0
                                       || memcmp(&atol, &s->uniform_atol, sizeof atol) != 0)) {
        for (int k = 0; k < s->n; k++) {
            s->rtol_vec[k] = s->uniform_rtol;
            s->atol_vec[k] = s->uniform_atol;
        }
        s->tol_uniform = 0;
    }
    if (s->tol_uniform == 0) {
        s->rtol_vec[i] = rtol;
        s->atol_vec[i] = atol;
    }
    s->err_exclude[i] = (unsigned char)(var->kind == HYDAE_VELOCITY && !s->set.vel_ctrl);
}
