/*
** `hydae converge`: seed 002's convergence-study advice, automated. Runs a
** model at decreasing integr_tol (or decreasing h_max at a fixed
** tolerance), records the chosen channels on one output grid, and reports
** how many significant digits each run agrees with the tightest one to,
** and the largest tolerance (or step) whose channels agree to the stated
** number of digits.
**
** The model is a built-in example (--example NAME) or a model file
** (MODEL.hym, compiled by src/lang; its experiment block applies first,
** then --tend, --dt, --solver and the tolerance or h_max being studied).
**
** --compare-solvers: instead of one integrator at many tolerances, every
** integrator that can run the model at 3 tolerances, against one tight
** reference run, as a work-precision table with the cheapest integrator
** that reaches --digits (converge_compare.c).
**
** Agreement of a channel: digits = -log10(max_t |a(t) - a_ref(t)| /
** max_t |a_ref(t)|), the error relative to the channel's magnitude over the
** run, so channels passing through zero do not blow up the measure.
*/
#include "converge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int hy_converge_record_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)t;
    channel_recorder *r = user;
    if (kind != HYDAE_ROW_GRID)
        return 0;
    if (r->n_rows == r->cap_rows) {
        long cap = r->cap_rows ? 2 * r->cap_rows : 1024;
        double *grown = hy_realloc(r->values, sizeof(double) * (size_t)cap * (size_t)r->n_channels);
        if (!grown)
            return -1;
        r->values = grown;
        r->cap_rows = cap;
    }
    for (int c = 0; c < r->n_channels; c++)
        r->values[r->n_rows * r->n_channels + c] = values[r->column[c]];
    r->n_rows++;
    return 0;
}

static const char converge_usage[] =
    "usage: hydae converge (MODEL.hym | --example NAME) --channels a,b,... [options]\n"
    "  --from TOL        loosest integr_tol (default 1e-2)\n"
    "  --to TOL          tightest integr_tol, the reference (default 1e-9)\n"
    "  --digits D        agreement wanted, significant digits (default 3)\n"
    "  --h-max-study H   instead: integr_tol fixed (--tol), h_max from H halving\n"
    "  --tol TOL         the fixed tolerance of an h_max study (default 1e-6)\n"
    "  --tend T, --dt DT, --set NAME=VALUE, --solver NAME as for run\n"
    "  --compare-solvers  instead: every integrator that can run the model at\n"
    "                    integr_tol --from, /100, /10^4 (default 1e-4, 1e-6, 1e-8)\n"
    "                    against one run of --solver (default RADAU) at --to\n"
    "                    (default 1e-11): CPU, steps, evaluations, error, digits,\n"
    "                    and the cheapest integrator reaching --digits (default 3);\n"
    "                    --channels optional (default: every result column)\n";


int hy_converge_parse_number(const char *option, const char *text, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (!text[0] || *end || !isfinite(v)) {
        fprintf(stderr, "hydae converge: %s needs a number, not '%s'\n", option, text);
        return 2;
    }
    *out = v;
    return 0;
}

static int parse_study(int argc, char **argv, study *st)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0) {
            fputs(converge_usage, stdout);
            return -1;
        }
        if (strcmp(arg, "--compare-solvers") == 0) {
            st->compare_solvers = 1;
            continue;
        }
        if (arg[0] != '-' && !st->model_file) {
            st->model_file = arg;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "hydae converge: option '%s' needs a value\n%s", arg, converge_usage);
            return 2;
        }
        const char *value = argv[++i];
        int status = 0;
        if (strcmp(arg, "--example") == 0)
            st->example = value;
        else if (strcmp(arg, "--channels") == 0)
            st->channels = value;
        else if (strcmp(arg, "--solver") == 0)
            st->solver = value;
        else if (strcmp(arg, "--set") == 0 && st->n_sets < 64)
            st->sets[st->n_sets++] = value;
        else if (strcmp(arg, "--from") == 0)
            status = hy_converge_parse_number(arg, value, &st->from), st->have_from = 1;
        else if (strcmp(arg, "--to") == 0)
            status = hy_converge_parse_number(arg, value, &st->to), st->have_to = 1;
        else if (strcmp(arg, "--digits") == 0)
            status = hy_converge_parse_number(arg, value, &st->digits);
        else if (strcmp(arg, "--h-max-study") == 0)
            status = hy_converge_parse_number(arg, value, &st->h_max_start);
        else if (strcmp(arg, "--tol") == 0)
            status = hy_converge_parse_number(arg, value, &st->fixed_tol);
        else if (strcmp(arg, "--tend") == 0)
            status = hy_converge_parse_number(arg, value, &st->t_end), st->have_t_end = 1;
        else if (strcmp(arg, "--dt") == 0)
            status = hy_converge_parse_number(arg, value, &st->dt), st->have_dt = 1;
        else {
            fprintf(stderr, "hydae converge: unknown option '%s'\n%s", arg, converge_usage);
            return 2;
        }
        if (status)
            return status;
    }
    if (st->compare_solvers) {
        st->from = st->have_from ? st->from : 1e-4;
        st->to = st->have_to ? st->to : 1e-11;
    }
    if (!st->example == !st->model_file || (!st->channels && !st->compare_solvers)) {
        fprintf(stderr, "hydae converge: needs a model file or --example NAME (one of them) "
                "and --channels a,b\n%s", converge_usage);
        return 2;
    }
    if (!(st->from > 0 && st->to > 0 && st->to < st->from && st->digits > 0)) {
        fprintf(stderr, "hydae converge: want 0 < --to < --from and --digits > 0\n");
        return 2;
    }
    if (st->compare_solvers && st->h_max_start > 0) {
        fprintf(stderr, "hydae converge: --compare-solvers studies integr_tol; it does not "
                "take --h-max-study\n");
        return 2;
    }
    if (st->compare_solvers && !(st->to < st->from * 1e-4 && st->from < 1.0)) {
        fprintf(stderr, "hydae converge: --compare-solvers runs at --from, --from/100 and "
                "--from/10^4, so it wants --from < 1 and --to below --from/10^4 (the "
                "reference), not --from %g --to %g\n", st->from, st->to);
        return 2;
    }
    return 0;
}

/* Columns of the comma-separated channel names; 2 on an unknown name. */
int hy_converge_resolve_channels(const hydae_model *m, const char *list, channel_recorder *r)
{
    r->n_channels = 0;
    if (!list) {
        for (int c = 0; c < hydae_model_n_columns(m) && c < MAX_CHANNELS; c++)
            r->column[r->n_channels++] = c;
        return r->n_channels > 0 ? 0 : 2;
    }
    char names[512];
    snprintf(names, sizeof names, "%s", list);
    for (char *name = strtok(names, ","); name; name = strtok(NULL, ",")) {
        int found = -1;
        for (int c = 0; c < hydae_model_n_columns(m); c++)
            if (strcmp(hydae_model_column_name(m, c), name) == 0)
                found = c;
        if (found < 0) {
            fprintf(stderr, "hydae converge: no channel '%s' in the results (columns:", name);
            for (int c = 0; c < hydae_model_n_columns(m); c++)
                fprintf(stderr, " %s", hydae_model_column_name(m, c));
            fprintf(stderr, ")\n");
            return 2;
        }
        if (r->n_channels == MAX_CHANNELS) {
            fprintf(stderr, "hydae converge: at most %d channels\n", MAX_CHANNELS);
            return 2;
        }
        r->column[r->n_channels++] = found;
    }
    return r->n_channels > 0 ? 0 : 2;
}

typedef struct run_record {
    double knob;                /* integr_tol or h_max */
    int status;
    long steps;
    double seconds;
    channel_recorder rec;
} run_record;

/* The run's time span and output grid: the example's, or the model file's
** experiment; --tend and --dt override either. */
int hy_converge_set_span(hydae_sim *sim, const study *st, const hydae_example *ex,
                    const hy_lang_experiment *experiment)
{
    if (ex)
        return hydae_sim_set_time(sim, 0.0, st->have_t_end ? st->t_end : ex->t_end)
               || hydae_sim_set_output_interval(sim, st->have_dt ? st->dt : ex->dt_out);
    char text[64];
    int bad = hy_lang_experiment_apply(experiment, sim, NULL) != 0;
    if (!bad && st->have_t_end) {
        snprintf(text, sizeof text, "%.17g", st->t_end);
        bad = hydae_sim_set_option(sim, "t_end", text) != 0;
    }
    if (!bad && st->have_dt) {
        snprintf(text, sizeof text, "%.17g", st->dt);
        bad = hydae_sim_set_option(sim, "dt", text) != 0;
    }
    return bad;
}

static int one_run(hydae_model *m, const study *st, const hydae_example *ex,
                   const hy_lang_experiment *experiment, double knob, run_record *out)
{
    int status;
    hydae_sim *sim = hydae_sim_create(m, &status);
    if (!sim)
        return 2;
    char text[64];
    int bad = hy_converge_set_span(sim, st, ex, experiment)
              || (st->solver && hydae_sim_set_integrator(sim, st->solver));
    if (st->h_max_start > 0) {
        snprintf(text, sizeof text, "%.17g", st->fixed_tol);
        bad = bad || hydae_sim_set_option(sim, "integr_tol", text);
        snprintf(text, sizeof text, "%.17g", knob);
        bad = bad || hydae_sim_set_option(sim, "h_max", text);
    } else {
        snprintf(text, sizeof text, "%.17g", knob);
        bad = bad || hydae_sim_set_option(sim, "integr_tol", text);
    }
    bad = bad || hydae_sim_add_row_sink(sim, hy_converge_record_row, &out->rec);
    if (bad) {
        fprintf(stderr, "hydae converge: %s\n", hydae_sim_errmsg(sim));
        hydae_sim_free(sim);
        return 2;
    }
    out->knob = knob;
    out->status = hydae_sim_run(sim);
    if (out->status)
        fprintf(stderr, "hydae converge: the run at %g failed: %s\n", knob,
                hydae_sim_errmsg(sim));
    hydae_stats stats;
    hydae_sim_get_stats(sim, &stats);
    out->steps = stats.n_steps;
    out->seconds = stats.wall_seconds;
    hydae_sim_free(sim);
    return 0;
}

double hy_converge_digits(const channel_recorder *run, const channel_recorder *ref, int c)
{
    if (run->n_rows != ref->n_rows || run->n_rows == 0)
        return NAN;
    double max_diff = 0.0, max_ref = 0.0;
    for (long i = 0; i < ref->n_rows; i++) {
        double a = run->values[i * run->n_channels + c], b = ref->values[i * ref->n_channels + c];
        if (isnan(a) != isnan(b))
            return 0.0; /* defined in one run, not in the other: a different mode sequence */
        if (isnan(a))
            continue;
        max_diff = fmax(max_diff, fabs(a - b));
        max_ref = fmax(max_ref, fabs(b));
    }
    if (max_diff == 0.0)
        return 16.0;
    return -log10(max_diff / (max_ref > 0.0 ? max_ref : 1.0));
}

int hy_cli_converge(int argc, char **argv)
{
    study st;
    memset(&st, 0, sizeof st);
    st.from = 1e-2;
    st.to = 1e-9;
    st.digits = 3.0;
    st.fixed_tol = 1e-6;
    int status = parse_study(argc, argv, &st);
    if (status)
        return status < 0 ? 0 : status;
    const hydae_example *ex = NULL;
    hy_lang_experiment experiment;
    hydae_model *m = NULL;
    if (st.example) {
        ex = hydae_example_find(st.example);
        if (!ex) {
            fprintf(stderr, "hydae converge: no built-in example '%s'\n", st.example);
            return 2;
        }
        m = ex->build();
    } else {
        int n_errors = 0;
        /* The compiled code is attached to the model: freed with it. */
        m = hy_lang_unit_model(hy_lang_compile_file(st.model_file, stderr, &experiment,
                                                    &n_errors));
        if (!m)
            fprintf(stderr, "hydae converge: %s: %d error%s; nothing was simulated\n",
                    st.model_file, n_errors, n_errors == 1 ? "" : "s");
    }
    if (!m)
        return 2;
    for (int i = 0; i < st.n_sets; i++) {
        char name[128];
        const char *eq = strchr(st.sets[i], '=');
        double v;
        if (!eq || (size_t)(eq - st.sets[i]) >= sizeof name
            || hy_converge_parse_number("--set", eq + 1, &v)) {
            fprintf(stderr, "hydae converge: --set needs NAME=VALUE, not '%s'\n", st.sets[i]);
            hydae_model_free(m);
            return 2;
        }
        memcpy(name, st.sets[i], (size_t)(eq - st.sets[i]));
        name[eq - st.sets[i]] = '\0';
        if (hy_cli_set_value(m, name, v)) {
            fprintf(stderr, "hydae converge: %s\n", hydae_model_errmsg(m));
            hydae_model_free(m);
            return 2;
        }
    }
    if (hydae_model_check(m)) {
        fprintf(stderr, "hydae converge: model error: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return 2;
    }
    if (st.compare_solvers) {
        status = hy_converge_compare_solvers(m, &st, ex, ex ? NULL : &experiment);
        hydae_model_free(m);
        return status;
    }
    run_record runs[MAX_RUNS];
    memset(runs, 0, sizeof runs);
    int n_runs = 0;
    status = 0;
    /* Knobs: integr_tol from..to by decades, or h_max halving 8 times. */
    for (double knob = st.h_max_start > 0 ? st.h_max_start : st.from; n_runs < MAX_RUNS;) {
        if (hy_converge_resolve_channels(m, st.channels, &runs[n_runs].rec)) {
            status = 2;
            break;
        }
        status = one_run(m, &st, ex, ex ? NULL : &experiment, knob, &runs[n_runs]);
        n_runs++;
        if (status)
            break;
        if (st.h_max_start > 0) {
            if (n_runs == 9)
                break;
            knob *= 0.5;
        } else {
            if (knob <= st.to * (1.0 + 1e-9))
                break;
            knob = fmax(knob / 10.0, st.to);
        }
    }
    if (!status) {
        const run_record *ref = &runs[n_runs - 1];
        printf("%-12s %8s %10s", st.h_max_start > 0 ? "h_max" : "integr_tol", "steps", "time [s]");
        char names[512];
        snprintf(names, sizeof names, "%s", st.channels);
        for (char *name = strtok(names, ","); name; name = strtok(NULL, ","))
            printf(" %10s", name);
        printf("   (significant digits agreeing with the last run)\n");
        double worst[MAX_RUNS];
        for (int r = 0; r < n_runs; r++) {
            printf("%-12.3g %8ld %10.4f", runs[r].knob, runs[r].steps, runs[r].seconds);
            worst[r] = INFINITY;
            for (int c = 0; c < runs[r].rec.n_channels; c++) {
                double d = runs[r].status ? NAN : hy_converge_digits(&runs[r].rec, &ref->rec, c);
                worst[r] = fmin(worst[r], isnan(d) ? -INFINITY : d);
                if (r == n_runs - 1)
                    printf(" %10s", "reference");
                else
                    printf(" %10.2f", d);
            }
            printf("\n");
        }
        /* The loosest run from which on every run agrees: one lucky loose
        ** run followed by a disagreeing tighter one does not count. */
        int chosen = -1;
        for (int r = n_runs - 2; r >= 0 && worst[r] >= st.digits; r--)
            chosen = r;
        if (chosen >= 0)
            printf("the largest %s whose channels agree to %g digits with %s = %g: %g\n",
                   st.h_max_start > 0 ? "h_max" : "integr_tol", st.digits,
                   st.h_max_start > 0 ? "h_max" : "integr_tol", ref->knob, runs[chosen].knob);
        else
            printf("no %s agrees to %g digits with the reference: tighten --to, or fewer "
                   "digits\n", st.h_max_start > 0 ? "h_max" : "integr_tol", st.digits);
        status = ref->status ? 1 : 0;
    }
    for (int r = 0; r < n_runs; r++)
        hy_free(runs[r].rec.values);
    hydae_model_free(m);
    return status;
}
