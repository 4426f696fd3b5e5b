/*
** A parameter study of a model file from a C program through libhydae's
** sweep API (docs/sweep.md, "From C"):
**
**   sweep_model MODEL.hym MEASURES GRID... > table.csv
**   sweep_model examples/bouncing_ball.hym 'count(bounce),first(bounce),max(v)' \
**       g=4:2:12 e=0.7,0.8
**
** GRID is NAME=START:STEP:STOP or NAME=V1,V2,... (their full product) of
** a parameter or discrete variable.
** Runs on every core; each row, as it comes in run order, is shown on
** standard error; the table goes to standard output as CSV. Exit 0, 1 if a
** run failed, 2 on bad input.
*/
#include <hydae.h>

#include <math.h>
#include <stdio.h>

/* Called from the thread that called hydae_sweep_run, in run order. */
static int show_row(void *user, const hydae_sweep_row *row)
{
    const hydae_sweep *sw = user;
    fprintf(stderr, "run %ld:", row->run);
    for (int k = 0; k < hydae_sweep_n_params(sw); k++)
        fprintf(stderr, " %s = %g", hydae_sweep_param_name(sw, k), row->params[k]);
    fprintf(stderr, " ->");
    for (int k = 0; k < hydae_sweep_n_measures(sw); k++)
        fprintf(stderr, isnan(row->measures[k]) ? " %s none" : " %s = %g",
                hydae_sweep_measure_name(sw, k), row->measures[k]);
    fprintf(stderr, " (%s, %ld steps)\n", row->status, row->steps);
    return 0; /* non-zero would stop the sweep */
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: sweep_model MODEL.hym MEASURES GRID... > table.csv\n");
        return 2;
    }
    char *diagnostics = NULL;
    hydae_model *m = hydae_model_load_file(argv[1], &diagnostics, NULL);
    if (diagnostics)
        fputs(diagnostics, stderr);
    hydae_string_free(diagnostics);
    hydae_sweep *sw = m ? hydae_sweep_create(m) : NULL;
    if (!sw) {
        hydae_model_free(m);
        return 2;
    }
    int status = hydae_sweep_add_measures(sw, argv[2]);
    for (int i = 3; i < argc && status == 0; i++)
        status = hydae_sweep_add_grid_spec(sw, argv[i]);
    if (status == 0)
        status = hydae_sweep_set_threads(sw, 0); /* every core */
    if (status == 0)
        status = hydae_sweep_run(sw, show_row, sw);
    if (status == 0)
        status = hydae_sweep_write_csv(sw, stdout);
    int exit_status = status != 0 ? 2 : hydae_sweep_n_failed(sw) > 0;
    if (status != 0)
        fprintf(stderr, "sweep_model: %s\n", hydae_sweep_errmsg(sw));
    else
        fprintf(stderr, "sweep_model: %ld runs, %ld failed\n", hydae_sweep_n_runs(sw),
                hydae_sweep_n_failed(sw));
    hydae_sweep_free(sw);
    hydae_model_free(m);
    return exit_status;
}
