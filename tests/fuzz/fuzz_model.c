/*
** libFuzzer target: the model-file front end as `hydae run FILE.hym` and
** `hydae check FILE.hym` drive it (src/cli/main.c). The input is a model
** file: compiled (lexer, parser, checks, structural analysis, code), its
** diagnostics printed; when it compiles, the check report printed, a sim
** created, the file's experiment applied, and a bounded run made
** (fuzz_bounds.h) with the CSV, MAT, plot and statistics writers attached.
** Every output goes to /dev/null: the writers' code runs, nothing is kept.
*/
#include "fuzz_bounds.h" /* first: it sets _POSIX_C_SOURCE */
#include "lang/lang.h"
#include "lang/unroll.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_bounds_init();
    hy_unroll_max_items = 20000; /* a for-loop to 10^6 is no finding */
    return 0;
}

/* The writers of `hydae run`, all to /dev/null. */
static int add_writers(hydae_sim *sim, FILE *sink)
{
    hydae_plot_options plot = { NULL, NULL, NULL, NULL, 0 };
    if (hydae_sim_add_csv(sim, sink) || hydae_sim_add_mat(sim, sink, NULL, 1)
        || hydae_sim_add_plot(sim, sink, &plot))
        return -1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *sink = fuzz_null_stream();
    if (!sink)
        return 0;
    const char *source = (const char *)data;
    hy_lang_experiment experiment;
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, size, "fuzz.hym", sink, &experiment,
                                                &n_errors);
    if (!unit)
        return 0;
    /* What `hydae check` prints, for a model that compiles (a model that
    ** does not shows the same diagnostics as above). */
    (void)hy_lang_check_report_string(source, size, "fuzz.hym", sink);
    hydae_model *model = hy_lang_unit_model(unit);
    int status = 0;
    hydae_sim *sim = hydae_sim_create(model, &status);
    if (sim) {
        if (hy_lang_experiment_apply(&experiment, sim, sink) == 0 && add_writers(sim, sink) == 0) {
            (void)fuzz_bounded_run(sim, FUZZ_MAX_STEPS, 10.0);
            (void)hydae_sim_write_stats_json(sim, sink);
        }
        hydae_sim_free(sim);
    }
    hydae_model_free(model); /* and the compiled unit attached to it */
    return 0;
}
