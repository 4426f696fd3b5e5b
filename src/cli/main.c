/*
** The `hydae` command: subcommands over the library's public API.
**   hydae run --example NAME [options]   simulate a built-in C example
**   hydae examples                       list the built-in examples
** Exit codes: 0 success, 1 simulation failure, 2 usage or model error.
*/
#define _XOPEN_SOURCE 700 /* realpath, PATH_MAX */

#include "examples.h"
#include "hydae.h"
#include "integrators/integrator.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_SIM_FAILURE = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "usage: hydae <command> [options]\n"
    "\n"
    "commands:\n"
    "  run --example NAME [options]   simulate a built-in example\n"
    "  examples                       list the built-in examples\n"
    "  solvers                        list the integrators\n"
    "  help                           this text\n"
    "\n"
    "options of run:\n"
    "  --example NAME     the built-in example to run (see `hydae examples`)\n"
    "  -o FILE            write results as CSV to FILE ('-': standard output);\n"
    "                     default NAME.csv in the current directory\n"
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
    "  --set NAME=VALUE   set a parameter or discrete start value; repeatable\n"
    "  --stats            print run statistics to standard error\n"
    "  --quiet            print nothing but errors\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 success, 1 simulation failure, 2 usage or model error\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("hydae: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'hydae --help'.\n", stderr);
    return EXIT_USAGE;
}

/* A whole-string finite number, or usage error. */
static int parse_number(const char *option, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (!text[0] || *end != '\0' || errno == ERANGE || !isfinite(value)) {
        fprintf(stderr, "hydae: %s needs a finite number, not '%s'\n", option, text);
        return EXIT_USAGE;
    }
    *out = value;
    return 0;
}

static int list_examples(void)
{
    for (int i = 0; i < hydae_n_examples; i++)
        printf("%-18s %s\n", hydae_examples[i].name, hydae_examples[i].summary);
    return 0;
}

static int list_solvers(void)
{
    for (int i = 0; hy_integrators[i]; i++)
        printf("%-8s %s\n", hy_integrators[i]->name,
               hy_integrators[i]->needs_rhs ? "explicit ODEs y' = f(t, y)"
                                            : "DAEs F(t, y, y') = 0 of index <= 1, and ODEs");
    return 0;
}

typedef struct run_options {
    const char *example;
    const char *output;
    const char *solver;
    double t0, t_end, dt, rtol, atol, h_max, h_min, h0;
    int have_t_end, have_dt, have_rtol, have_atol;
    int max_order;
    int stats, quiet;
    int n_sets;
    const char **sets;
} run_options;

static int parse_run_options(int argc, char **argv, run_options *opt)
{
    static const char *const numeric[] = { "--t0", "--tend", "--dt", "--rtol", "--atol",
                                           "--h-max", "--h-min", "--h0" };
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--stats") == 0) {
            opt->stats = 1;
            continue;
        }
        if (strcmp(arg, "--quiet") == 0) {
            opt->quiet = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage_text, stdout);
            return -1;
        }
        int takes_value = strcmp(arg, "--example") == 0 || strcmp(arg, "-o") == 0
                          || strcmp(arg, "--solver") == 0
                          || strcmp(arg, "--set") == 0 || strcmp(arg, "--max-order") == 0;
        int numeric_index = -1;
        for (int k = 0; k < (int)(sizeof numeric / sizeof numeric[0]); k++)
            if (strcmp(arg, numeric[k]) == 0)
                numeric_index = k;
        if (!takes_value && numeric_index < 0)
            return usage_error("unknown option '%s'", arg);
        if (i + 1 >= argc)
            return usage_error("option '%s' needs a value", arg);
        const char *value = argv[++i];
        if (strcmp(arg, "--example") == 0) {
            opt->example = value;
        } else if (strcmp(arg, "--solver") == 0) {
            opt->solver = value;
        } else if (strcmp(arg, "-o") == 0) {
            opt->output = value;
        } else if (strcmp(arg, "--set") == 0) {
            if (!strchr(value, '='))
                return usage_error("--set needs NAME=VALUE, not '%s'", value);
            opt->sets[opt->n_sets++] = value;
        } else if (strcmp(arg, "--max-order") == 0) {
            double order;
            if (parse_number(arg, value, &order))
                return EXIT_USAGE;
            if (order != floor(order) || order < 1 || order > 12)
                return usage_error("--max-order must be an integer from 1 to 12, not '%s'",
                                   value);
            opt->max_order = (int)order;
        } else {
            double number;
            if (parse_number(arg, value, &number))
                return EXIT_USAGE;
            double *targets[] = { &opt->t0, &opt->t_end, &opt->dt, &opt->rtol, &opt->atol,
                                  &opt->h_max, &opt->h_min, &opt->h0 };
            *targets[numeric_index] = number;
            opt->have_t_end |= numeric_index == 1;
            opt->have_dt |= numeric_index == 2;
            opt->have_rtol |= numeric_index == 3;
            opt->have_atol |= numeric_index == 4;
        }
    }
    if (!opt->example)
        return usage_error("%s", "run needs a model: --example NAME (see `hydae examples`)");
    return 0;
}

static int apply_sets(hydae_model *model, const run_options *opt)
{
    for (int i = 0; i < opt->n_sets; i++) {
        char name[256];
        const char *eq = strchr(opt->sets[i], '=');
        size_t len = (size_t)(eq - opt->sets[i]);
        if (len == 0 || len >= sizeof name)
            return usage_error("--set needs NAME=VALUE, not '%s'", opt->sets[i]);
        memcpy(name, opt->sets[i], len);
        name[len] = '\0';
        double value;
        if (parse_number("--set", eq + 1, &value))
            return EXIT_USAGE;
        if (hydae_model_set_param(model, name, value) != 0) {
            fprintf(stderr, "hydae: --set %s: %s\n", opt->sets[i], hydae_model_errmsg(model));
            return EXIT_USAGE;
        }
    }
    return 0;
}

static int configure(hydae_sim *sim, const run_options *opt, const hydae_example *ex)
{
    double t_end = opt->have_t_end ? opt->t_end : ex->t_end;
    double dt = opt->have_dt ? opt->dt : ex->dt_out;
    double rtol = opt->have_rtol ? opt->rtol : ex->rtol;
    double atol = opt->have_atol ? opt->atol : (opt->have_rtol ? opt->rtol * 1e-2 : ex->atol);
    if (hydae_sim_set_time(sim, opt->t0, t_end) || hydae_sim_set_output_interval(sim, dt)
        || hydae_sim_set_tolerances(sim, rtol, atol)
        || hydae_sim_set_step_limits(sim, opt->h_min, opt->h_max, opt->h0)
        || (opt->max_order > 0 && hydae_sim_set_max_order(sim, opt->max_order))
        || (opt->solver && hydae_sim_set_integrator(sim, opt->solver))) {
        fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
        return EXIT_USAGE;
    }
    return 0;
}

static int command_run(int argc, char **argv)
{
    const char *sets_storage[256];
    run_options opt;
    memset(&opt, 0, sizeof opt);
    opt.h_max = INFINITY;
    opt.sets = sets_storage;
    if (argc > (int)(sizeof sets_storage / sizeof sets_storage[0]))
        return usage_error("%s", "too many arguments");
    int status = parse_run_options(argc, argv, &opt);
    if (status)
        return status < 0 ? 0 : status;
    const hydae_example *ex = hydae_example_find(opt.example);
    if (!ex)
        return usage_error("no built-in example '%s' (see `hydae examples`)", opt.example);
    hydae_model *model = ex->build();
    if (!model) {
        fprintf(stderr, "hydae: could not build example '%s'\n", ex->name);
        return EXIT_USAGE;
    }
    status = apply_sets(model, &opt);
    if (status) {
        hydae_model_free(model);
        return status;
    }
    int create_status = 0;
    hydae_sim *sim = hydae_sim_create(model, &create_status);
    if (!sim) {
        fprintf(stderr, "hydae: model error: %s\n", hydae_model_errmsg(model));
        hydae_model_free(model);
        return EXIT_USAGE;
    }
    status = configure(sim, &opt, ex);
    char default_path[PATH_MAX];
    const char *path = opt.output;
    if (!path) {
        snprintf(default_path, sizeof default_path, "%s.csv", ex->name);
        path = default_path;
    }
    int to_stdout = strcmp(path, "-") == 0;
    FILE *out = NULL;
    if (!status) {
        out = to_stdout ? stdout : fopen(path, "w");
        if (!out) {
            fprintf(stderr, "hydae: cannot write '%s': %s\n", path, strerror(errno));
            status = EXIT_USAGE;
        } else if (hydae_sim_add_csv(sim, out) != 0) {
            fprintf(stderr, "hydae: out of memory\n");
            status = EXIT_SIM_FAILURE;
        }
    }
    if (!status) {
        int run_status = hydae_sim_run(sim);
        if (run_status) {
            fprintf(stderr, "hydae: simulation failed: %s\n", hydae_sim_errmsg(sim));
            if (!to_stdout && run_status != HYDAE_ERR_IO)
                fprintf(stderr, "hydae: results up to t = %.17g are in %s (marked as "
                        "stopped early)\n", hydae_sim_time(sim), path);
            status = EXIT_SIM_FAILURE;
        }
        if (opt.stats)
            hydae_sim_print_stats(sim, stderr);
    }
    if (out) {
        int write_failed = fflush(out) != 0 || ferror(out);
        if (!to_stdout && fclose(out) != 0)
            write_failed = 1;
        if (write_failed && !status) {
            fprintf(stderr, "hydae: error writing the results to '%s': %s\n", path,
                    strerror(errno));
            status = EXIT_SIM_FAILURE;
        }
    }
    if (!status && !opt.quiet && !to_stdout) {
        char resolved[PATH_MAX];
        const char *shown = realpath(path, resolved) ? resolved : path;
        printf("hydae: %s simulated to t = %g; results in %s\n", ex->name, hydae_sim_time(sim),
               shown);
    }
    hydae_sim_free(sim);
    hydae_model_free(model);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0
        || strcmp(command, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        printf("hydae %s\n", hydae_version());
        return 0;
    }
    if (strcmp(command, "run") == 0)
        return command_run(argc - 2, argv + 2);
    if (strcmp(command, "examples") == 0)
        return list_examples();
    if (strcmp(command, "solvers") == 0)
        return list_solvers();
    return usage_error("unknown command '%s'", command);
}
