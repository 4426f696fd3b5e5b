/*
** What a sweep costs around its runs (bench/sweep.sh, under callgrind):
**   sweep_overhead MODEL.hym sweep N   N runs of hydae_sweep on 1 thread,
**                                      a = 0.5 + k / N, measure x (final)
**   sweep_overhead MODEL.hym runs N    the same N runs made by hand: one sim,
**                                      for each run hydae_sim_set_param and
**                                      hydae_sim_run, a row sink keeping x
**   sweep_overhead MODEL.hym fresh N   the same with a new sim per run
**                                      (create, experiment, sink, run, free:
**                                      what the sweep did before it reused
**                                      each thread's sim)
** The difference of the instruction counts, divided by N, is the sweep's
** cost per run (the model compiled once in both).
*/
#include "hydae.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int keep_final(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    (void)t;
    *(double *)user = values[0];
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sweep_overhead MODEL.hym sweep|runs|fresh N\n");
        return 2;
    }
    long n = strtol(argv[3], NULL, 10);
    hydae_model *m = hydae_model_load_file(argv[1], NULL, NULL);
    double *a = malloc(sizeof *a * (size_t)n), x = 0.0;
    if (!m || !a || n <= 0)
        return 2;
    for (long k = 0; k < n; k++)
        a[k] = 0.5 + (double)k / (double)n;
    int status = 0;
    if (strcmp(argv[2], "sweep") == 0) {
        hydae_sweep *sw = hydae_sweep_create(m);
        status = hydae_sweep_add_grid(sw, "a", a, (int)n);
        if (!status)
            status = hydae_sweep_add_measures(sw, "x");
        if (!status)
            status = hydae_sweep_set_threads(sw, 1);
        if (!status)
            status = hydae_sweep_run(sw, NULL, NULL);
        hydae_sweep_row row;
        if (!status && hydae_sweep_get_row(sw, n - 1, &row) == 0)
            x = row.measures[0];
        hydae_sweep_free(sw);
    } else if (strcmp(argv[2], "fresh") == 0) {
        for (long k = 0; k < n && !status; k++) {
            hydae_sim *s = hydae_sim_create(m, &status);
            if (s)
                status = hydae_sim_apply_experiment(s);
            if (!status)
                status = hydae_sim_add_row_sink(s, keep_final, &x);
            if (!status)
                status = hydae_sim_set_param(s, "a", a[k]);
            if (!status)
                status = hydae_sim_run(s);
            hydae_sim_free(s);
        }
    } else {
        hydae_sim *s = hydae_sim_create(m, &status);
        if (s)
            status = hydae_sim_apply_experiment(s);
        if (!status)
            status = hydae_sim_add_row_sink(s, keep_final, &x);
        for (long k = 0; k < n && !status; k++) {
            status = hydae_sim_set_param(s, "a", a[k]);
            if (!status)
                status = hydae_sim_run(s);
        }
        hydae_sim_free(s);
    }
    printf("%ld runs, status %d, last x %.17g\n", n, status, x);
    free(a);
    hydae_model_free(m);
    return status ? 1 : 0;
}
