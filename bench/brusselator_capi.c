/*
** The Brusselator of examples/brusselator.c through the public C API,
** with its hand-written residual and sparse Jacobian: the reference run
** of bench/brusselator_hym.sh (issue 20), which compares it with
** examples/brusselator.hym loaded from the model file. The settings are
** the model file's: DSTIFF, t in [0, 10], output every 1, rtol = atol =
** 1e-6, linear_solver auto. No row is written (the .hym run writes one
** column); the steps go to stdout so that the script can compare them.
**
**   brusselator_capi M
*/
#include "examples.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long m = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (m < 3) {
        fprintf(stderr, "usage: brusselator_capi M   (M >= 3 interior points, 2M unknowns)\n");
        return 2;
    }
    hydae_model *model = example_brusselator_sized(m, 1);
    int status = HYDAE_ERR_NOMEM;
    hydae_sim *sim = model ? hydae_sim_create(model, &status) : NULL;
    if (!sim) {
        fprintf(stderr, "brusselator_capi: cannot build the model (%d)\n", status);
        hydae_model_free(model);
        return 1;
    }
    status = hydae_sim_set_time(sim, 0.0, 10.0);
    if (!status)
        status = hydae_sim_set_output_interval(sim, 1.0);
    if (!status)
        status = hydae_sim_set_tolerances(sim, 1e-6, 1e-6);
    if (!status)
        status = hydae_sim_set_integrator(sim, "DSTIFF");
    if (!status)
        status = hydae_sim_set_option(sim, "linear_solver", "auto");
    if (!status)
        status = hydae_sim_run(sim);
    if (status)
        fprintf(stderr, "brusselator_capi: %s\n", hydae_sim_errmsg(sim));
    hydae_stats st;
    hydae_sim_get_stats(sim, &st);
    printf("steps %ld\n", st.n_steps);
    hydae_sim_free(sim);
    hydae_model_free(model);
    return status != 0;
}
