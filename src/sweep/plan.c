/*
** The plan of a parameter study (hydae_sweep_*, `hydae sweep`): grid axes
** (their full product, the last axis varying fastest), samples (a
** counter-based generator: run i's numbers depend only on the seed, i and
** the parameter, so a table does not depend on the number of threads or
** the order runs finish), Latin hypercube strata, and the measures
** (docs/sweep.md). A function that fails leaves its message in
** plan->errmsg.
**
** Generator: SplitMix64's output function (Steele, Lea & Flood, "Fast
** splittable pseudorandom number generators", OOPSLA 2014) applied to a
** key built from (seed, run, parameter): u = (mix(key) >> 11 + 0.5) 2^-53,
** in (0, 1). A normal value is mean + sd Phi^-1(u): Acklam's rational
** approximation of the inverse normal CDF (P. J. Acklam, 2003, relative
** error 1.15e-9) refined by one Halley step on erfc.
*/
#include "sweep.h"

#include "core/core.h"
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GRID_VALUES = 10000000 };

/* A message for the caller (hydae_sweep_errmsg, `hydae sweep` on stderr). */
__attribute__((format(printf, 2, 3))) static void say(sweep_plan *plan, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->errmsg, sizeof plan->errmsg, fmt, ap);
    va_end(ap);
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The uniform number of (seed, stream, index) in (0, 1). */
static double uniform01(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t z = mix64(mix64(mix64(seed) ^ stream) ^ index);
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

/* Phi^-1(p), 0 < p < 1 (Acklam; one Halley step). */
static double normal_quantile(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00 };
    const double p_low = 0.02425;
    double x;
    if (p < p_low || p > 1.0 - p_low) {
        double q = sqrt(-2.0 * log(p < p_low ? p : 1.0 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
        if (p > 1.0 - p_low)
            x = -x;
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    }
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    double u = e * 2.5066282746310002 * exp(x * x / 2.0); /* sqrt(2 pi) */
    return x - u / (1.0 + x * u / 2.0);
}

/* NAME=REST: the name into param, REST returned; NULL with a message. */
static const char *split_name(const char *option, const char *spec, sweep_plan *plan)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= SWEEP_NAME_CAP) {
        say(plan, "%s '%s': expected NAME=...", option, spec);
        return NULL;
    }
    if (plan->n_params == SWEEP_MAX_PARAMS) {
        say(plan, "more than %d parameters", SWEEP_MAX_PARAMS);
        return NULL;
    }
    sweep_param *p = &plan->params[plan->n_params];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%.*s", (int)(eq - spec), spec);
    for (int k = 0; k < plan->n_params; k++)
        if (strcmp(plan->params[k].name, p->name) == 0) {
            say(plan, "'%s' given twice", p->name);
            return NULL;
        }
    return eq + 1;
}

/* A whole number of the text, all of it: 0, or -1. */
static int parse_number(const char *text, const char *end, double *value)
{
    char buf[64];
    if (end - text <= 0 || end - text >= (long)sizeof buf)
        return -1;
    memcpy(buf, text, (size_t)(end - text));
    buf[end - text] = '\0';
    char *stop;
    *value = strtod(buf, &stop);
    return *stop == '\0' && isfinite(*value) ? 0 : -1;
}

/* START:STEP:STOP: the values start + k step, k = 0 .. n - 1, n the count
** of steps that reach stop allowing 1e-9 of a step for rounding (0:0.1:1
** has 11 values), the last set to stop exactly when it is that close. */
static int grid_range(sweep_param *p, double start, double step, double stop)
{
    double ratio = (stop - start) / step;
    if (step == 0.0 || !(ratio >= -1e-9) || ratio > MAX_GRID_VALUES)
        return -1;
    long n = (long)floor(ratio + 1e-9) + 1;
    p->values = hy_malloc(sizeof *p->values * (size_t)n);
    if (!p->values)
        return -1;
    for (long k = 0; k < n; k++)
        p->values[k] = start + (double)k * step;
    if (fabs(p->values[n - 1] - stop) <= 1e-9 * fabs(step))
        p->values[n - 1] = stop;
    p->n_values = (int)n;
    return 0;
}

int hy_sweep_add_grid(sweep_plan *plan, const char *spec)
{
    const char *rest = split_name("--grid", spec, plan);
    if (!rest)
        return -1;
    sweep_param *p = &plan->params[plan->n_params];
    const char *c1 = strchr(rest, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    double x[3];
    int ok;
    if (c1) {
        ok = c2 && parse_number(rest, c1, &x[0]) == 0 && parse_number(c1 + 1, c2, &x[1]) == 0
             && parse_number(c2 + 1, c2 + strlen(c2), &x[2]) == 0
             && grid_range(p, x[0], x[1], x[2]) == 0;
    } else {
        int n = 1;
        for (const char *s = rest; *s; s++)
            n += *s == ',';
        p->values = hy_malloc(sizeof *p->values * (size_t)n);
        ok = p->values != NULL;
        for (const char *s = rest; ok && p->n_values < n; p->n_values++) {
            const char *end = strchr(s, ',');
            end = end ? end : s + strlen(s);
            ok = parse_number(s, end, &p->values[p->n_values]) == 0;
            s = *end ? end + 1 : end;
        }
    }
    if (!ok) {
        hy_free(p->values);
        say(plan, "--grid %s: expected NAME=START:STEP:STOP (STOP reachable "
                "from START by STEP) or NAME=V1,V2,...", spec);
        return -1;
    }
    plan->n_params++;
    return 0;
}

int hy_sweep_add_grid_values(sweep_plan *plan, const char *name, const double *values, int n)
{
    if (!name || !values || n <= 0 || strlen(name) >= SWEEP_NAME_CAP) {
        say(plan, "a grid needs a name (shorter than %d) and at least one value",
            SWEEP_NAME_CAP);
        return -1;
    }
    char spec[SWEEP_NAME_CAP + 2];
    snprintf(spec, sizeof spec, "%s=", name);
    if (!split_name("a grid", spec, plan))
        return -1;
    sweep_param *p = &plan->params[plan->n_params];
    p->values = hy_malloc(sizeof *p->values * (size_t)n);
    if (!p->values) {
        say(plan, "out of memory");
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (!isfinite(values[k])) {
            say(plan, "grid '%s': value %d is not a finite number", name, k);
            hy_free(p->values);
            return -1;
        }
    memcpy(p->values, values, sizeof *p->values * (size_t)n);
    p->n_values = n;
    plan->n_params++;
    return 0;
}

int hy_sweep_add_dist(sweep_plan *plan, const char *spec)
{
    const char *rest = split_name("--dist", spec, plan);
    if (!rest)
        return -1;
    sweep_param *p = &plan->params[plan->n_params];
    const char *open = strchr(rest, '('), *comma = open ? strchr(open, ',') : NULL;
    const char *close = comma ? strchr(comma, ')') : NULL;
    int ok = close && close[1] == '\0' && parse_number(open + 1, comma, &p->a) == 0
             && parse_number(comma + 1, close, &p->b) == 0;
    if (ok && strncmp(rest, "normal(", 7) == 0 && open == rest + 6)
        ok = p->b > 0.0, p->dist = SWEEP_NORMAL;
    else if (ok && strncmp(rest, "uniform(", 8) == 0 && open == rest + 7)
        ok = p->b > p->a, p->dist = SWEEP_UNIFORM;
    else
        ok = 0;
    if (!ok) {
        say(plan, "--dist %s: expected NAME=normal(MEAN,SD) with SD > 0 or "
                "NAME=uniform(LOW,HIGH) with LOW < HIGH", spec);
        return -1;
    }
    plan->n_params++;
    plan->sampled = 1;
    return 0;
}

/* Is name a transition of the model ("NAME" or "CHART.NAME")? */
static int is_transition(const hydae_model *model, const char *name)
{
    for (int c = 0; c < model->n_charts; c++) {
        const hydae_chart *chart = model->charts[c];
        size_t n = strlen(chart->name);
        const char *own = strncmp(name, chart->name, n) == 0 && name[n] == '.' ? name + n + 1
                                                                               : name;
        for (int k = 0; k < chart->n_transitions; k++)
            if (strcmp(chart->transitions[k]->name, own) == 0)
                return 1;
    }
    return 0;
}

static int find_column(const hydae_model *model, const char *name)
{
    for (int c = 0; c < hydae_model_n_columns(model); c++)
        if (strcmp(hydae_model_column_name(model, c), name) == 0)
            return c;
    return -1;
}

static int add_measure(sweep_plan *plan, const hydae_model *model, const char *text, size_t len)
{
    static const struct { const char *fn; sweep_measure_kind kind; } fns[] = {
        { "max", SWEEP_MAX }, { "min", SWEEP_MIN }, { "integral", SWEEP_INTEGRAL },
        { "count", SWEEP_COUNT }, { "first", SWEEP_FIRST }, { "final", SWEEP_FINAL },
    };
    sweep_measure m = { SWEEP_FINAL, "", "", -1 };
    if (len == 0 || len >= SWEEP_NAME_CAP) {
        say(plan, "--measure: an empty or too long measure");
        return -1;
    }
    snprintf(m.label, sizeof m.label, "%.*s", (int)len, text);
    snprintf(m.name, sizeof m.name, "%.*s", (int)len, text);
    const char *open = strchr(m.label, '(');
    if (open) {
        size_t fn_len = (size_t)(open - m.label), arg_len = strlen(open + 1);
        int known = 0;
        for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
            if (strlen(fns[k].fn) == fn_len && strncmp(m.label, fns[k].fn, fn_len) == 0)
                m.kind = fns[k].kind, known = 1;
        if (!known || arg_len < 2 || open[arg_len] != ')') {
            say(plan, "--measure %s: expected NAME, final(NAME), max(NAME), "
                    "min(NAME), integral(NAME), count(TRANSITION) or first(TRANSITION)",
                    m.label);
            return -1;
        }
        snprintf(m.name, sizeof m.name, "%.*s", (int)arg_len - 1, open + 1);
    }
    if (m.kind == SWEEP_COUNT || m.kind == SWEEP_FIRST) {
        if (!is_transition(model, m.name)) {
            say(plan, "--measure %s: model '%s' has no transition '%s'",
                    m.label, model->name, m.name);
            return -1;
        }
    } else if ((m.column = find_column(model, m.name)) < 0) {
        say(plan, "--measure %s: '%s' is not a result column of model "
                "'%s'", m.label, m.name, model->name);
        return -1;
    }
    sweep_measure *grown = hy_realloc(plan->measures, sizeof *grown * (size_t)(plan->n_measures + 1));
    if (!grown) {
        say(plan, "out of memory");
        return -1;
    }
    plan->measures = grown;
    plan->measures[plan->n_measures++] = m;
    return 0;
}

int hy_sweep_add_measures(sweep_plan *plan, const hydae_model *model, const char *spec)
{
    /* Commas inside parentheses belong to the measure (none take two
    ** arguments today, but a list splits only at depth 0). */
    int depth = 0;
    const char *start = spec;
    for (const char *s = spec;; s++) {
        if (*s == '(')
            depth++;
        else if (*s == ')')
            depth--;
        else if ((*s == ',' && depth == 0) || *s == '\0') {
            if (add_measure(plan, model, start, (size_t)(s - start)))
                return -1;
            if (*s == '\0')
                return 0;
            start = s + 1;
        }
    }
}

int hy_sweep_default_measures(sweep_plan *plan, const hydae_model *model)
{
    for (int c = 0; c < hydae_model_n_columns(model); c++) {
        const char *name = hydae_model_column_name(model, c);
        if (add_measure(plan, model, name, strlen(name)))
            return -1;
    }
    return 0;
}

/* --lhs: each parameter's strata a permutation (Fisher-Yates) drawn
** from its own stream, so run i falls in stratum lhs_stratum[i]. */
static int make_strata(sweep_plan *plan)
{
    for (int k = 0; k < plan->n_params; k++) {
        sweep_param *p = &plan->params[k];
        p->lhs_stratum = hy_malloc(sizeof *p->lhs_stratum * (size_t)plan->n_runs);
        if (!p->lhs_stratum)
            return -1;
        for (long i = 0; i < plan->n_runs; i++)
            p->lhs_stratum[i] = i;
        for (long i = plan->n_runs - 1; i > 0; i--) {
            long j = (long)(uniform01(plan->seed, 0x4c4853ULL + (uint64_t)k, (uint64_t)i)
                            * (double)(i + 1));
            j = j > i ? i : j;
            long swap = p->lhs_stratum[i];
            p->lhs_stratum[i] = p->lhs_stratum[j];
            p->lhs_stratum[j] = swap;
        }
    }
    return 0;
}

int hy_sweep_plan_finish(sweep_plan *plan)
{
    if (plan->n_params == 0) {
        say(plan, "no --grid or --dist: nothing to vary");
        return -1;
    }
    int n_grids = 0;
    for (int k = 0; k < plan->n_params; k++)
        n_grids += plan->params[k].values != NULL;
    if (plan->sampled && n_grids > 0) {
        say(plan, "give either grids (--grid) or a sample (--sample, "
                "--dist), not both");
        return -1;
    }
    if (plan->sampled != (plan->n_runs > 0) || (plan->lhs && !plan->sampled)) {
        say(plan, "--dist goes with --sample N (N > 0), and --lhs with "
                "both");
        return -1;
    }
    if (!plan->sampled) {
        plan->n_runs = 1;
        for (int k = 0; k < plan->n_params; k++) {
            if (plan->n_runs > 100000000L / plan->params[k].n_values) {
                say(plan, "more than 10^8 runs");
                return -1;
            }
            plan->n_runs *= plan->params[k].n_values;
        }
    }
    if (plan->lhs && make_strata(plan)) {
        say(plan, "out of memory");
        return -1;
    }
    return 0;
}

void hy_sweep_plan_free(sweep_plan *plan)
{
    for (int k = 0; k < plan->n_params; k++) {
        hy_free(plan->params[k].values);
        hy_free(plan->params[k].lhs_stratum);
    }
    hy_free(plan->measures);
    memset(plan, 0, sizeof *plan);
}

void hy_sweep_run_values(const sweep_plan *plan, long i, double *values)
{
    if (!plan->sampled) {
        long rest = i; /* mixed radix, the last axis fastest */
        for (int k = plan->n_params - 1; k >= 0; k--) {
            const sweep_param *p = &plan->params[k];
            values[k] = p->values[rest % p->n_values];
            rest /= p->n_values;
        }
        return;
    }
    for (int k = 0; k < plan->n_params; k++) {
        const sweep_param *p = &plan->params[k];
        double u = uniform01(plan->seed, (uint64_t)k, (uint64_t)i);
        if (plan->lhs)
            u = ((double)p->lhs_stratum[i] + u) / (double)plan->n_runs;
        values[k] = p->dist == SWEEP_NORMAL ? p->a + p->b * normal_quantile(u)
                                            : p->a + (p->b - p->a) * u;
    }
}
