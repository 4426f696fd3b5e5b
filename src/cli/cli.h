/*
** The `hydae` command's subcommands beyond main.c, one file each.
*/
#ifndef HY_CLI_H
#define HY_CLI_H

#include "examples.h"
#include "hydae.h"

/* `hydae converge ...`: argc/argv after the subcommand. Exit status. */
int hy_cli_converge(int argc, char **argv);
/* `hydae settings`: the table of settings. */
int hy_cli_list_settings(void);
/* `hydae plot FILE.csv ...` (plot.c): argc/argv after the subcommand. */
int hy_cli_plot(int argc, char **argv);
/* One --set NAME=VALUE (main.c): a parameter or discrete variable, else a
** start value (hydae_model_set_start). 0, or non-zero with the message on
** the model. */
int hy_cli_set_value(hydae_model *model, const char *name, double value);

#endif
