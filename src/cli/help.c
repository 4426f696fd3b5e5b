/*
** Help of the `hydae` command: `hydae --help` (every command, the options of
** run and plot), `hydae help COMMAND` and `hydae COMMAND --help` (that
** command's own), all on standard output with exit status 0.
*/
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char commands_text[] =
    "usage: hydae <command> [options]\n"
    "\n"
    "commands:\n"
    "  run MODEL.hym [options]        simulate a model file (docs/language.md)\n"
    "  run MODEL.fmu [options]        simulate an FMU, FMI 2.0 or 3.0: Model Exchange,\n"
    "                                 or Co-Simulation (--fmi-cs) (docs/fmi.md)\n"
    "  run --example NAME [options]   simulate a built-in example\n"
    "  check MODEL.hym                compile a model file and show its structure\n"
    "  export MODEL.hym [-o X.fmu]    the model as an FMI Co-Simulation FMU\n"
    "                                 (docs/fmi.md)\n"
    "  plot FILE.csv|FILE.mat [options]  plot a result file (or a sweep's table) as SVG\n"
    "  examples                       list the built-in examples\n"
    "  solvers                        list the integrators\n"
    "  settings                       list the transient-solver settings\n"
    "  converge (MODEL.hym | --example NAME) --channels A,B [options]\n"
    "                                 convergence study over integr_tol or h_max\n"
    "  converge MODEL.hym --compare-solvers\n"
    "                                 every integrator at 3 tolerances: a work-precision\n"
    "                                 table and the cheapest (docs/solver.md)\n"
    "  sweep MODEL.hym --grid NAME=A:STEP:B | --sample N --dist ... [options]\n"
    "                                 many runs over parameters, a table (docs/sweep.md)\n"
    "  help [COMMAND]                 this text, or a command's (also COMMAND --help)\n"
    "  cache clean                    remove the native backend's compiled models\n";

static const char run_text[] =
    "options of run:\n"
    "  --example NAME     the built-in example to run (see `hydae examples`)\n"
    "  -o FILE            write results to FILE: a Modelica result file (MAT v4)\n"
    "                     if it ends in .mat, else CSV ('-': CSV on standard\n"
    "                     output); default NAME.csv in the current directory\n"
    "  --vars A,B,...     the columns to write (results, parameters, mode(CHART));\n"
    "                     default: every result (and, in a .mat, every parameter)\n"
    "  --modes            add the active mode of every chart as columns\n"
    "  --csv-units        a line '#unit,...' after the CSV header: each column's unit\n"
    "  --output grid|steps  rows on the --dt grid (default) or at every step,\n"
    "                     and always at both sides of every event\n"
    "  --t0 T             start time (default 0)\n"
    "  --tend T           stop time (default: the example's)\n"
    "  --dt DT            output interval (default: the example's)\n"
    "  --rtol R           relative tolerance (default: the example's)\n"
    "  --atol A           absolute tolerance (default: the example's)\n"
    "  --h-max H          largest step (default: none)\n"
    "  --h-min H          smallest step (default: 0)\n"
    "  --h0 H             first step (default: automatic)\n"
    "  --max-order K      largest order (BDF 1-5, Adams 1-12; default: the method's)\n"
    "  --solver NAME      the integrator (default DSTIFF; `hydae solvers` lists them)\n"
    "  --set NAME=VALUE   set a parameter, a discrete start value or a variable's\n"
    "                     start value (NAME or MODE.NAME); repeatable\n"
    "  --SETTING VALUE    any transient-solver setting of `hydae settings`, e.g.\n"
    "                     --integr_tol 1e-4 --dae_jacob_eval 2 (dashes or underscores)\n"
    "  --settings FILE    settings from a <Param_Transient .../> XML element;\n"
    "                     options on the command line override it\n"
    "  --debug-newton     print every corrector iteration to standard error\n"
    "  --fmi-cs           an FMU through its Co-Simulation interface, stepped every\n"
    "                     --dt (default: its stepSize); automatic without Model\n"
    "                     Exchange\n"
    "  --plot FILE        an SVG plot: time panels with mode bands and events\n"
    "  --plot-vars A,B    the plot's panels (default: the --vars, else all results)\n"
    "  --phase X,Y        an X-Y phase plot instead of time panels\n"
    "  --title TEXT       the plot's title (default: the example's name)\n"
    "  --no-clock-ticks   leave the sample-clock ticks out of the plot\n"
    "  --stats            print run statistics to standard error\n"
    "  --stats-json FILE  write run statistics as JSON ('-': standard output)\n"
    "  --quiet            print nothing but errors (and no progress bar, which\n"
    "                     is shown on standard error when it is a terminal)\n"
    "  --backend native|vm|auto  how a model file's equations run: the bytecode\n"
    "                     (vm, the default), native code compiled by the system C\n"
    "                     compiler and cached (native), native if a compiler is\n"
    "                     found (auto); also HYDAE_BACKEND (docs/language.md)\n"
    "  --no-cache         compile native code afresh, keep nothing\n";

static const char plot_text[] =
    "options of plot (FILE.csv or FILE.mat, as hydae run writes them):\n"
    "  -o FILE            the SVG file (default: FILE with .svg)\n"
    "  --vars A,B,...     one time panel per name (default: every column)\n"
    "  --phase X,Y        an X-Y phase plot instead\n"
    "  --x NAME           a sweep's table (hydae sweep -o T.csv): each measure over\n"
    "                     this parameter (default: the first), a dot per run\n"
    "  --by NAME          one curve per value of this parameter (at most 8)\n"
    "  --title TEXT       the title (default: the result file's name)\n"
    "  --no-clock-ticks   leave the sample-clock ticks out (events on a regular grid)\n"
    "  --quiet            do not say where the plot is\n";

static const char footer_text[] =
    "exit status: 0 success, 1 simulation failure or write error, 2 usage or model\n"
    "error, 130 / 143 a run ended by SIGINT / SIGTERM (results marked as stopped early)\n";

/* Commands with a text of their own (run, plot, converge, sweep: above). */
static const struct {
    const char *name, *text;
} command_texts[] = {
    { "check", "usage: hydae check [--backend native|vm|auto] MODEL.hym\n"
               "  compile a model file and print its structure: parameters, charts, modes\n"
               "  with their unknowns (kind, start, unit, description), equations, outputs,\n"
               "  guards, transitions; exit 2 with file:line:column messages on errors;\n"
               "  with --backend native or auto, also compile it to native code\n" },
    { "cache", "usage: hydae cache clean\n"
               "  remove the native backend's compiled models from the cache directory\n"
               "  ($XDG_CACHE_HOME/hydae, else ~/.cache/hydae)\n" },
    { "examples", "usage: hydae examples\n  list the built-in examples (hydae run --example NAME)\n" },
    { "solvers", "usage: hydae solvers\n  list the integrators (hydae run --solver NAME)\n" },
    { "settings", "usage: hydae settings\n"
                  "  list the transient-solver settings: name, type, default, meaning\n"
                  "  (hydae run --SETTING VALUE; docs/solver.md)\n" },
    { "help", "usage: hydae help [COMMAND]\n  every command's usage, or COMMAND's\n" },
    { "version", "usage: hydae --version\n  the version of hydae\n" },
};

void hy_cli_usage(FILE *out)
{
    fprintf(out, "%s\n%s\n%s\n  --help, --version\n\n%s", commands_text, run_text, plot_text,
            footer_text);
}

int hy_cli_help(const char *command)
{
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0)
        command = "help";
    if (strcmp(command, "run") == 0) {
        printf("usage: hydae run (MODEL.hym | MODEL.fmu | --example NAME) [options]\n\n%s\n%s",
               run_text, footer_text);
        return 0;
    }
    if (strcmp(command, "plot") == 0) {
        printf("usage: hydae plot FILE.csv|FILE.mat [options]\n\n%s\n%s", plot_text,
               footer_text);
        return 0;
    }
    if (strcmp(command, "export") == 0) {
        char help[] = "--help";
        char *argv[] = { help, NULL };
        return hy_cli_export(1, argv);
    }
    if (strcmp(command, "converge") == 0) {
        char help[] = "--help";
        char *argv[] = { help, NULL };
        return hy_cli_converge(1, argv);
    }
    if (strcmp(command, "sweep") == 0) {
        char help[] = "--help";
        char *argv[] = { help, NULL };
        return hy_cli_sweep(1, argv);
    }
    for (size_t i = 0; i < sizeof command_texts / sizeof command_texts[0]; i++)
        if (strcmp(command, command_texts[i].name) == 0) {
            fputs(command_texts[i].text, stdout);
            return 0;
        }
    fprintf(stderr, "hydae: no command '%s'\n%s", command, commands_text);
    return 2;
}

int hy_cli_asks_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}
