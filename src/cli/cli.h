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

#endif
