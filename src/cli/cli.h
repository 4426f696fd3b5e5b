/*
** The `hydae` command's subcommands beyond main.c, one file each.
*/
#ifndef HY_CLI_H
#define HY_CLI_H

#include "examples.h"
#include "hydae.h"
#include "lang/lang.h"

#include <stdio.h>

/* help.c: every command's usage (`hydae --help`) on out; one command's
** on standard output (0, or 2 for an unknown command); 1 if the
** arguments after a command ask for help (--help, -h). */
void hy_cli_usage(FILE *out);
int hy_cli_help(const char *command);
int hy_cli_asks_help(int argc, char **argv);

/* `hydae converge ...`: argc/argv after the subcommand. Exit status. */
int hy_cli_converge(int argc, char **argv);
/* `hydae sweep MODEL.hym ...` (sweep.c): argc/argv after the subcommand. */
int hy_cli_sweep(int argc, char **argv);
/* `hydae settings`: the table of settings. */
int hy_cli_list_settings(void);
/* `hydae plot FILE.csv ...` (plot.c): argc/argv after the subcommand. */
int hy_cli_plot(int argc, char **argv);
/* `hydae export MODEL.hym -o MODEL.fmu` (export.c). Exit status. */
int hy_cli_export(int argc, char **argv);
/* One --set NAME=VALUE (main.c): a parameter or discrete variable, else a
** start value (hydae_model_set_start). 0, or non-zero with the message on
** the model. */
int hy_cli_set_value(hydae_model *model, const char *name, double value);

/* backend.c: strip --backend NAME and --no-cache from argv[0..*argc),
** setting HYDAE_BACKEND and HYDAE_NO_CACHE; *asked_native (may be NULL):
** a backend other than vm is asked for. 0, or 2 after a usage message. */
int hy_cli_backend_options(int *argc, char **argv, int *asked_native);
/* The line "backend: ..." of the statistics of a model from a model file. */
void hy_cli_print_native_stats(const hydae_model *model, FILE *out);
/* `hydae cache clean`: argc/argv after the subcommand. Exit status. */
int hy_cli_cache(int argc, char **argv);
/* `hydae check` with a native backend asked for: compile it too. */
int hy_cli_check_backend(const char *path);

/* `hydae run MODEL.fmu` (fmu.c): the FMU as a model (it owns the FMU),
** through Co-Simulation when cosim (or when it has no Model Exchange),
** stepped every dt (> 0; else its stepSize); its <DefaultExperiment> as
** settings in *experiment; NULL after printing why (exit 2), also in a
** build without FMI support. *fmu: for hy_cli_fmu_report after a failed
** run. */
typedef struct hy_fmu hy_fmu;
hydae_model *hy_cli_load_fmu(const char *path, int cosim, double dt,
                             hy_lang_experiment *experiment, hy_fmu **fmu);
/* How model files read their FMU components (NULL without FMI support). */
const hy_lang_fmu_ops *hy_cli_fmu_ops(void);
/* The FMU's own account of a failed run (the call, the time, its log). */
void hy_cli_fmu_report(const hy_fmu *fmu);

#endif
