/*
** A model file simulated from a C program through libhydae (docs/engine.md,
** "Model files"; docs/install.md builds it against an installed hydae):
**
**   run_model MODEL.hym [NAME=VALUE ...] > results.csv
**
** loads the file, sets parameters or start values, applies the file's
** experiment block, runs and writes the results as CSV to standard output
** and the statistics to standard error. Exit 0, 1 if the run failed, 2 if
** the model did not load or a NAME=VALUE is wrong.
*/
#include <hydae.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAME=VALUE: a parameter (or discrete variable), else a start value. */
static int set_value(hydae_model *m, const char *assignment)
{
    char name[256];
    const char *eq = strchr(assignment, '=');
    char *end = NULL;
    double value = eq ? strtod(eq + 1, &end) : 0;
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name || end == eq + 1
        || *end != '\0') {
        fprintf(stderr, "run_model: want NAME=VALUE, not '%s'\n", assignment);
        return -1;
    }
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = '\0';
    if (hydae_model_set_param(m, name, value) != 0 && hydae_model_set_start(m, name, value) != 0) {
        fprintf(stderr, "run_model: %s: %s\n", assignment, hydae_model_errmsg(m));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: run_model MODEL.hym [NAME=VALUE ...] > results.csv\n");
        return 2;
    }
    char *diagnostics = NULL;
    int n_errors = 0;
    hydae_model *m = hydae_model_load_file(argv[1], &diagnostics, &n_errors);
    if (diagnostics)
        fputs(diagnostics, stderr); /* file:line:column: error: ... (or warnings) */
    hydae_string_free(diagnostics);
    if (!m) {
        fprintf(stderr, "run_model: %s: %d error(s)\n", argv[1], n_errors);
        return 2;
    }
    int status = 0;
    for (int i = 2; i < argc && status == 0; i++)
        status = set_value(m, argv[i]);
    hydae_sim *s = status == 0 ? hydae_sim_create(m, &status) : NULL;
    if (!s) {
        if (status != -1)
            fprintf(stderr, "run_model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return 2;
    }
    /* The file's experiment first; settings of your own after it win. */
    if (hydae_sim_apply_experiment(s) != 0 || hydae_sim_add_csv(s, stdout) != 0) {
        fprintf(stderr, "run_model: %s\n", hydae_sim_errmsg(s));
        hydae_sim_free(s);
        hydae_model_free(m);
        return 2;
    }
    status = hydae_sim_run(s);
    if (status != 0)
        fprintf(stderr, "run_model: the run stopped at t = %g: %s\n", hydae_sim_time(s),
                hydae_sim_errmsg(s));
    hydae_sim_print_stats(s, stderr);
    hydae_sim_free(s);
    hydae_model_free(m);
    return status == 0 ? 0 : 1;
}
