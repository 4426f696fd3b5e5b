/*
** `hydae run MODEL.fmu`: an FMU for Model Exchange, or for Co-Simulation
** (--fmi-cs, or when it has no Model Exchange interface), simulated as a
** hydae model (src/fmi/, docs/fmi.md), with the FMU's <DefaultExperiment>
** as the experiment that command-line options override (--dt is also the
** communication step of Co-Simulation). In a build without FMI support
** (no libzip or expat) it says so.
*/
#include "cli.h"

#include <stdio.h>
#include <string.h>

#ifdef HYDAE_HAVE_FMI
#include "core/core.h"
#include "fmi/fmu.h"

static void add_setting(hy_lang_experiment *ex, const char *name, double value)
{
    hy_lang_setting *s = &ex->settings[ex->n_settings++];
    memset(s, 0, sizeof *s);
    hy_format(s->name, sizeof s->name, "%s", name);
    hy_format(s->value, sizeof s->value, "%.17g", value);
}

hydae_model *hy_cli_load_fmu(const char *path, int cosim, double dt,
                             hy_lang_experiment *experiment, hy_fmu **fmu)
{
    char err[2048];
    hydae_model *model = hy_fmu_open_model_as(path, cosim ? HY_FMU_CO_SIMULATION : HY_FMU_AUTO,
                                              fmu, err, sizeof err);
    if (!model) {
        fprintf(stderr, "hydae: %s\n", err);
        return NULL;
    }
    if (dt > 0.0 && hy_fmu_is_cosim(*fmu))
        (void)hy_fmu_set_communication_step(*fmu, dt); /* dt > 0 cannot be refused */
    /* startTime, stopTime, stepSize as the output interval, tolerance as
    ** rtol (and atol = rtol / 100, as --rtol alone gives). */
    const hy_fmi_description *d = hy_fmu_description(*fmu);
    memset(experiment, 0, sizeof *experiment);
    if (d->has_start_time)
        add_setting(experiment, "t0", d->start_time);
    if (d->has_stop_time)
        add_setting(experiment, "t_end", d->stop_time);
    if (d->has_step_size)
        add_setting(experiment, "dt", d->step_size);
    if (d->has_tolerance) {
        add_setting(experiment, "rtol", d->tolerance);
        add_setting(experiment, "atol", d->tolerance * 1e-2);
    }
    return model;
}

const hy_lang_fmu_ops *hy_cli_fmu_ops(void)
{
    return &hy_fmu_lang_ops;
}

void hy_cli_fmu_report(const hy_fmu *fmu)
{
    const char *message = hy_fmu_errmsg(fmu);
    if (message[0])
        fprintf(stderr, "hydae: %s\n", message);
}

#else

hydae_model *hy_cli_load_fmu(const char *path, int cosim, double dt,
                             hy_lang_experiment *experiment, hy_fmu **fmu)
{
    (void)cosim;
    (void)dt;
    (void)experiment;
    *fmu = NULL;
    fprintf(stderr, "hydae: %s: this build of hydae has no FMI support (it needs libzip and "
            "expat when built: Debian's libzip-dev and libexpat1-dev; see docs/fmi.md)\n",
            path);
    return NULL;
}

const hy_lang_fmu_ops *hy_cli_fmu_ops(void)
{
    return NULL;
}

void hy_cli_fmu_report(const hy_fmu *fmu)
{
    (void)fmu;
}

#endif
