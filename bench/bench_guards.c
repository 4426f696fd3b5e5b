/*
** The cost of guard monitoring per accepted step (issue 11): a harmonic
** oscillator x' = v, v' = -x (x = cos t) over 1000 s with RK45 and DSTIFF
** at rtol = atol = 1e-8, with
**   none      no guards (the baseline);
**   monotone  100 guards t + 1e6 + k, never near zero, never turning;
**   turning   100 guards x - (1.5 + 0.01 k): they never cross, but each
**             turns every half period, so the dip search of roots.c runs
**             and must prove that the extremum stays short of zero;
**   grazing   100 guards x - (1 + 1e-9 (k + 1)): extrema 1e-9 .. 1e-7
**             short of zero, the hardest case for that proof;
** each with guard_samples 3 (the default) and 0. Printed: steps, wall time
** per step, guard-function calls per step and the extra time per step
** over the baseline. Every transition listens to its guard rising (none
** fires). Needs no SUNDIALS. Usage: bench_guards [--csv FILE]
*/
#include "hydae.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { N_GUARDS = 100 };

typedef struct guard_case {
    const char *name;
    int kind;           /* 0 none, 1 monotone, 2 turning, 3 grazing */
    long n_calls;
} guard_case;

static int oscillator(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t, (void)p, (void)user;
    ydot[0] = y[1];
    ydot[1] = -y[0];
    return 0;
}

static int guards(double t, const double *y, const double *yp, const double *p, double *g,
                  void *user)
{
    (void)yp, (void)p;
    guard_case *gc = user;
    gc->n_calls++;
    for (int k = 0; k < N_GUARDS; k++) {
        if (gc->kind == 1)
            g[k] = t + 1e6 + k;
        else if (gc->kind == 2)
            g[k] = y[0] - (1.5 + 0.01 * k);
        else
            g[k] = y[0] - (1.0 + 1e-9 * (k + 1));
    }
    return 0;
}

static hydae_model *build(guard_case *gc)
{
    hydae_model *m = hydae_model_create("guards");
    hydae_chart *c = hydae_model_add_chart(m, "main");
    hydae_mode *mode = hydae_chart_add_mode(c, "swing");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_add_var(mode, "v", HYDAE_DIFFERENTIAL, 0.0) == 1
             && hydae_mode_set_rhs(mode, oscillator, gc) == 0;
    if (gc->kind > 0) {
        ok = ok && hydae_mode_set_guards(mode, N_GUARDS, guards) == 0;
        for (int k = 0; ok && k < N_GUARDS; k++) {
            char name[32];
            snprintf(name, sizeof name, "g%d", k);
            hydae_transition *tr = hydae_chart_add_transition(c, name, mode, mode);
            ok = tr && hydae_transition_on_guard(tr, k, HYDAE_RISING) == 0;
        }
    }
    if (!ok) {
        fprintf(stderr, "bench_guards: building the model failed: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

typedef struct measurement {
    long n_steps;
    double seconds;
    long n_calls;
} measurement;

static int measure(guard_case *gc, const char *solver, int samples, measurement *out)
{
    gc->n_calls = 0;
    hydae_model *m = build(gc);
    if (!m)
        return -1;
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    char samples_text[16];
    snprintf(samples_text, sizeof samples_text, "%d", samples);
    int ok = s && hydae_sim_set_integrator(s, solver) == 0
             && hydae_sim_set_time(s, 0.0, 1000.0) == 0
             && hydae_sim_set_output_interval(s, 1000.0) == 0
             && hydae_sim_set_tolerances(s, 1e-8, 1e-8) == 0
             && hydae_sim_set_option(s, "guard_samples", samples_text) == 0;
    /* Best of 3 against timer noise. */
    double best = INFINITY;
    hydae_stats st;
    memset(&st, 0, sizeof st);
    for (int rep = 0; ok && rep < 3; rep++) {
        gc->n_calls = 0;
        ok = hydae_sim_run(s) == 0;
        hydae_sim_get_stats(s, &st);
        best = fmin(best, st.wall_seconds);
        if (ok && st.n_events != 0) {
            fprintf(stderr, "bench_guards: %s fired %ld events; none expected\n", gc->name,
                    st.n_events);
            ok = 0;
        }
    }
    if (!ok)
        fprintf(stderr, "bench_guards: %s with %s failed: %s\n", gc->name, solver,
                s ? hydae_sim_errmsg(s) : "no sim");
    out->n_steps = st.n_steps;
    out->seconds = best;
    out->n_calls = gc->n_calls;
    hydae_sim_free(s);
    hydae_model_free(m);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    FILE *csv = NULL;
    if (argc == 3 && strcmp(argv[1], "--csv") == 0) {
        if (!(csv = fopen(argv[2], "w"))) {
            perror(argv[2]);
            return 1;
        }
        fprintf(csv, "solver,guards,guard_samples,steps,us_per_step,guard_calls_per_step,"
                     "extra_us_per_step\n");
    } else if (argc != 1) {
        fprintf(stderr, "usage: bench_guards [--csv FILE]\n");
        return 2;
    }
    guard_case cases[] = {
        { "none", 0, 0 }, { "monotone", 1, 0 }, { "turning", 2, 0 }, { "grazing", 3, 0 },
    };
    const char *solvers[] = { "RK45", "DSTIFF" };
    const int samples[] = { 3, 0 };
    int failed = 0;
    printf("harmonic oscillator over 1000 s, rtol = atol = 1e-8, %d guards\n", N_GUARDS);
    printf("%-7s %-9s %7s %8s %11s %13s %14s\n", "solver", "guards", "samples", "steps",
           "us/step", "guard calls", "extra us/step");
    for (int si = 0; si < 2; si++)
        for (int gi = 0; gi < 2; gi++) {
            measurement base;
            if (measure(&cases[0], solvers[si], samples[gi], &base)) {
                failed = 1;
                continue;
            }
            double base_us = 1e6 * base.seconds / (double)base.n_steps;
            for (int c = 0; c < 4; c++) {
                measurement mm = base;
                if (c > 0 && measure(&cases[c], solvers[si], samples[gi], &mm)) {
                    failed = 1;
                    continue;
                }
                double us = 1e6 * mm.seconds / (double)mm.n_steps;
                double calls = (double)mm.n_calls / (double)mm.n_steps;
                printf("%-7s %-9s %7d %8ld %11.3f %13.2f %14.3f\n", solvers[si], cases[c].name,
                       samples[gi], mm.n_steps, us, calls, us - base_us);
                if (csv)
                    fprintf(csv, "%s,%s,%d,%ld,%.4f,%.3f,%.4f\n", solvers[si], cases[c].name,
                            samples[gi], mm.n_steps, us, calls, us - base_us);
            }
        }
    if (csv)
        fclose(csv);
    return failed;
}
