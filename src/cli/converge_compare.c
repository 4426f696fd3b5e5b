/*
** `hydae converge --compare-solvers`: a work-precision table of every
** integrator that can run the user's model, at integr_tol --from, /100 and
** /10^4, each run's error measured against one tight reference run (--solver,
** default RADAU, at --to), and the cheapest integrator reaching --digits.
**
** Error of a run: the largest over the channels of max_t |a(t) - a_ref(t)| /
** max_t |a_ref(t)| on the output grid (hy_converge_digits); correct digits
** = -log10 of it. Cost: process CPU time of hydae_sim_run, the fastest of
** repetitions until 50 ms or 5 runs have been timed, so that a run of a
** small model taking microseconds is not one clock tick. Steps, residual
** evaluations (f-evals), Jacobians and LU factorisations come from
** hydae_sim_get_stats.
**
** Not compared, with the reason printed: methods for explicit ODEs on a
** model with a DAE mode (hydae_sim_validate's message), and RK4 (fixed
** step h_max, no tolerance). A method that needs more than 100 times the
** reference's steps (an explicit method on a stiff model) is stopped there.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "converge.h"
#include "integrators/integrator.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { N_TOLERANCES = 3, MAX_REPEATS = 5 };
static const double timing_budget_seconds = 0.05;

typedef struct compared_run {
    double tol;
    int status;                 /* hydae_sim_run's; 0: reached t_end */
    double cpu_seconds;         /* fastest of the repetitions */
    hydae_stats stats;
    double error, digits;       /* against the reference run */
} compared_run;

typedef struct run_setup {
    hydae_model *m;
    const study *st;
    const hydae_example *ex;
    const hy_lang_experiment *experiment;
    long max_steps;             /* 0: the sim's default */
} run_setup;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A sim of the model with the study's span, the integrator and integr_tol,
** recording into rec; NULL with a message in reason when the integrator
** cannot run this model (hydae_sim_validate) or a setting is refused. */
static hydae_sim *make_sim(const run_setup *rs, const char *solver, double tol,
                           channel_recorder *rec, char *reason, size_t reason_size)
{
    int status;
    hydae_sim *sim = hydae_sim_create(rs->m, &status);
    if (!sim) {
        snprintf(reason, reason_size, "%s", hydae_model_errmsg(rs->m));
        return NULL;
    }
    char text[64];
    snprintf(text, sizeof text, "%.17g", tol);
    int bad = hy_converge_set_span(sim, rs->st, rs->ex, rs->experiment)
              || hydae_sim_set_integrator(sim, solver)
              || hydae_sim_set_option(sim, "integr_tol", text)
              || (rs->max_steps > 0 && hydae_sim_set_max_steps(sim, rs->max_steps))
              || hydae_sim_add_row_sink(sim, hy_converge_record_row, rec)
              || hydae_sim_validate(sim);
    if (bad) {
        snprintf(reason, reason_size, "%s", hydae_sim_errmsg(sim));
        hydae_sim_free(sim);
        return NULL;
    }
    return sim;
}

/* Runs solver at tol, repeated for the timing; 0, or 2 when it cannot run
** the model (reason says why). A failed run is a result (out->status). */
static int run_timed(const run_setup *rs, const char *solver, double tol,
                     channel_recorder *rec, compared_run *out, char *reason, size_t reason_size)
{
    out->tol = tol;
    out->cpu_seconds = INFINITY;
    double spent = 0.0;
    for (int repeat = 0; repeat < MAX_REPEATS && spent < timing_budget_seconds; repeat++) {
        rec->n_rows = 0;
        hydae_sim *sim = make_sim(rs, solver, tol, rec, reason, reason_size);
        if (!sim)
            return 2;
        double start = cpu_now();
        out->status = hydae_sim_run(sim);
        double seconds = cpu_now() - start;
        spent += seconds;
        out->cpu_seconds = fmin(out->cpu_seconds, seconds);
        hydae_sim_get_stats(sim, &out->stats);
        if (out->status)
            snprintf(reason, reason_size, "%s", hydae_sim_errmsg(sim));
        hydae_sim_free(sim);
        if (out->status)
            break;
    }
    return 0;
}

static void measure_error(compared_run *run, const channel_recorder *rec,
                          const channel_recorder *ref)
{
    double digits = INFINITY;
    for (int c = 0; c < rec->n_channels; c++) {
        double d = hy_converge_digits(rec, ref, c);
        digits = fmin(digits, isnan(d) ? -INFINITY : d);
    }
    run->digits = digits;
    run->error = pow(10.0, -digits);
}

static void print_header(void)
{
    printf("%-8s %10s %10s %8s %9s %6s %6s %10s %7s\n", "solver", "integr_tol", "CPU [s]",
           "steps", "f-evals", "Jacs", "LUs", "error", "digits");
}

static void print_run(const char *solver, const compared_run *run, const char *reason)
{
    printf("%-8s %10.0e ", solver, run->tol);
    if (run->status) {
        printf("failed: %s\n", reason);
        return;
    }
    printf("%10.2e %8ld %9ld %6ld %6ld %10.2e %7.2f\n", run->cpu_seconds, run->stats.n_steps,
           run->stats.n_res_evals, run->stats.n_jac_evals, run->stats.n_lu, run->error,
           run->digits);
}

/* Compares one integrator at the study's tolerances; the cheapest of its
** runs reaching the digits wanted goes to *best if cheaper. */
static void compare_one(const run_setup *rs, const hy_integrator_ops *method,
                        const channel_recorder *ref, const compared_run **best,
                        const char **best_name, compared_run runs[N_TOLERANCES])
{
    char reason[512];
    if (method->fixed_step) {
        printf("%-8s skipped: a fixed step h_max, no error control to set a tolerance\n",
               method->name);
        return;
    }
    channel_recorder rec = *ref;
    rec.values = NULL;
    rec.n_rows = rec.cap_rows = 0;
    double tol = rs->st->from;
    for (int k = 0; k < N_TOLERANCES; k++, tol /= 100.0) {
        if (run_timed(rs, method->name, tol, &rec, &runs[k], reason, sizeof reason)) {
            printf("%-8s skipped: %s\n", method->name, reason);
            break;
        }
        if (!runs[k].status)
            measure_error(&runs[k], &rec, ref);
        print_run(method->name, &runs[k], reason);
        if (runs[k].status)
            break; /* tighter is slower still */
        if (runs[k].digits >= rs->st->digits
            && (!*best || runs[k].cpu_seconds < (*best)->cpu_seconds)) {
            *best = &runs[k];
            *best_name = method->name;
        }
    }
    hy_free(rec.values);
}

int hy_converge_compare_solvers(hydae_model *m, const study *st, const hydae_example *ex,
                                const hy_lang_experiment *experiment)
{
    run_setup rs = { m, st, ex, experiment, 0 };
    channel_recorder ref;
    memset(&ref, 0, sizeof ref);
    if (hy_converge_resolve_channels(m, st->channels, &ref))
        return 2;
    const char *ref_solver = st->solver ? st->solver : "RADAU";
    compared_run ref_run;
    char reason[512];
    if (run_timed(&rs, ref_solver, st->to, &ref, &ref_run, reason, sizeof reason)
        || ref_run.status) {
        fprintf(stderr, "hydae converge: the reference run (%s at integr_tol %g) failed: %s\n",
                ref_solver, st->to, reason);
        hy_free(ref.values);
        return 2;
    }
    int n_columns = hydae_model_n_columns(m);
    printf("reference: %s at integr_tol %g, %ld steps; error = largest over %d channel%s%s of "
           "max|x - x_ref| / max|x_ref| on the output grid, digits = -log10(error)\n",
           ref_solver, st->to, ref_run.stats.n_steps, ref.n_channels,
           ref.n_channels == 1 ? "" : "s",
           !st->channels && n_columns > ref.n_channels ? " (the first columns; --channels)" : "");
    print_header();
    rs.max_steps = 100 * ref_run.stats.n_steps + 10000;
    compared_run runs[16][N_TOLERANCES];
    const compared_run *best = NULL;
    const char *best_name = NULL;
    for (int i = 0; hy_integrators[i] && i < 16; i++)
        compare_one(&rs, hy_integrators[i], &ref, &best, &best_name, runs[i]);
    if (best)
        printf("recommended: %s at integr_tol %g, the least CPU (%.2e s) reaching %g digits "
               "(%.2f)\n", best_name, best->tol, best->cpu_seconds, st->digits, best->digits);
    else
        printf("recommended: none reaches %g digits at integr_tol >= %g; lower --from or "
               "--digits\n", st->digits, st->from * 1e-4);
    hy_free(ref.values);
    return 0;
}
