/*
** `hydae plot FILE.csv|FILE.mat [-o OUT.svg] [--vars A,B] [--phase X,Y]
** [--title T] [--no-clock-ticks]`: an SVG plot of a result file written by
** `hydae run`, CSV or MAT (see docs/results.md), or of a sweep's CSV table
** ([--x NAME] [--by NAME], docs/sweep.md). Exit status: 0, 1 if writing failed, 2 for a usage
** error or a file that cannot be read as hydae results.
*/
#define _XOPEN_SOURCE 700 /* realpath, PATH_MAX */

#include "cli.h"
#include "io/plot.h"
#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_WRITE_FAILURE = 1, EXIT_USAGE = 2 };

static int plot_usage_error(const char *fmt, const char *arg)
{
    fputs("hydae plot: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nusage: hydae plot FILE.csv|FILE.mat [-o OUT.svg] [--vars A,B,...] [--phase X,Y] "
          "[--x NAME] [--by NAME] [--title TEXT] [--no-clock-ticks] [--quiet]\n", stderr);
    return EXIT_USAGE;
}

/* Does name end in ".mat", in any case? */
static int is_mat_name(const char *name)
{
    size_t len = strlen(name);
    if (len <= 4)
        return 0;
    const char *ext = name + len - 4;
    return ext[0] == '.' && (ext[1] | 32) == 'm' && (ext[2] | 32) == 'a' && (ext[3] | 32) == 't';
}

/* The default output: FILE.csv or FILE.mat -> FILE.svg, other names get
** ".svg". */
static int default_output(const char *input, char *path, size_t size)
{
    size_t len = strlen(input);
    if ((len > 4 && strcmp(input + len - 4, ".csv") == 0) || is_mat_name(input))
        len -= 4;
    if (len + 5 > size)
        return -1;
    snprintf(path, size, "%.*s.svg", (int)len, input);
    return 0;
}

typedef struct plot_args {
    const char *input, *output;
    hydae_plot_options options;
    hy_plot_axes axes;       /* a sweep's table: --x, --by */
    char phase_x[256], phase_y[256];
    int quiet;
} plot_args;

static int parse_phase(plot_args *a, const char *phase)
{
    const char *comma = strchr(phase, ',');
    if (!comma || comma == phase || !comma[1] || strchr(comma + 1, ',')
        || (size_t)(comma - phase) >= sizeof a->phase_x || strlen(comma + 1) >= sizeof a->phase_y)
        return plot_usage_error("--phase needs two names X,Y, not '%s'", phase);
    memcpy(a->phase_x, phase, (size_t)(comma - phase));
    a->phase_x[comma - phase] = '\0';
    strcpy(a->phase_y, comma + 1);
    a->options.phase_x = a->phase_x;
    a->options.phase_y = a->phase_y;
    return 0;
}

/* 0, or an exit status (--help is answered before: help.c). */
static int parse_plot_args(int argc, char **argv, plot_args *a)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--quiet") == 0) {
            a->quiet = 1;
            continue;
        }
        if (strcmp(arg, "--no-clock-ticks") == 0) {
            a->options.no_clock_ticks = 1;
            continue;
        }
        if (arg[0] != '-') {
            if (a->input)
                return plot_usage_error("one result file only; '%s' is a second one", arg);
            a->input = arg;
            continue;
        }
        if (strcmp(arg, "-o") != 0 && strcmp(arg, "--vars") != 0 && strcmp(arg, "--phase") != 0
            && strcmp(arg, "--title") != 0 && strcmp(arg, "--x") != 0 && strcmp(arg, "--by") != 0)
            return plot_usage_error("unknown option '%s'", arg);
        if (i + 1 >= argc)
            return plot_usage_error("option '%s' needs a value", arg);
        const char *value = argv[++i];
        if (strcmp(arg, "-o") == 0)
            a->output = value;
        else if (strcmp(arg, "--vars") == 0)
            a->options.vars = value;
        else if (strcmp(arg, "--title") == 0)
            a->options.title = value;
        else if (strcmp(arg, "--x") == 0)
            a->axes.x = value;
        else if (strcmp(arg, "--by") == 0)
            a->axes.by = value;
        else if (parse_phase(a, value))
            return EXIT_USAGE;
    }
    if (!a->input)
        return plot_usage_error("%s", "which result file? (hydae plot FILE.csv or FILE.mat)");
    return 0;
}

int hy_cli_plot(int argc, char **argv)
{
    plot_args a;
    memset(&a, 0, sizeof a);
    int status = parse_plot_args(argc, argv, &a);
    if (status)
        return status;
    char default_path[PATH_MAX];
    if (!a.output) {
        if (default_output(a.input, default_path, sizeof default_path))
            return plot_usage_error("file name too long: '%s'", a.input);
        a.output = default_path;
    }
    hy_named_file files[] = { { "the input", a.input, 0 }, { "-o", a.output, 1 } };
    status = hy_check_distinct_files(files, 2, "hydae plot");
    if (status)
        return status;
    int is_mat = is_mat_name(a.input);
    FILE *in = fopen(a.input, is_mat ? "rb" : "r");
    if (!in) {
        fprintf(stderr, "hydae plot: cannot read '%s': %s\n", a.input, strerror(errno));
        return EXIT_USAGE;
    }
    hy_outfile out = { .path = a.output };
    status = hy_outfile_open(&out, "w", "hydae plot");
    if (status) {
        fclose(in);
        return status;
    }
    char err[1024];
    int plot_status = (is_mat ? hy_plot_mat_axes : hy_plot_csv_axes)(in, a.input, out.file,
                                                                    &a.options, &a.axes, err,
                                                                    sizeof err);
    fclose(in);
    if (plot_status == HYDAE_ERR_ARG || plot_status == HYDAE_ERR_NOMEM) {
        fprintf(stderr, "hydae plot: %s\n", err);
        hy_outfile_close(&out, 0); /* no half-written plot; an existing file stays */
        return plot_status == HYDAE_ERR_ARG ? EXIT_USAGE : EXIT_WRITE_FAILURE;
    }
    if (err[0] && !a.quiet)
        fprintf(stderr, "hydae plot: %s\n", err); /* a note on a readable file */
    int write_failed = hy_outfile_close(&out, plot_status == 0) != 0;
    if (plot_status || write_failed) {
        fprintf(stderr, "hydae plot: error writing '%s': %s\n", a.output, strerror(errno));
        return EXIT_WRITE_FAILURE;
    }
    if (!a.quiet) {
        char resolved[PATH_MAX];
        printf("hydae: plot in %s\n", realpath(a.output, resolved) ? resolved : a.output);
    }
    return 0;
}
