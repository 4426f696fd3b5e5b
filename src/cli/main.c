/*
** The `hydae` command: subcommands over the library's public API.
**   hydae run --example NAME [options]   simulate a built-in C example
**   hydae plot FILE.csv|FILE.mat [...]   plot a result file as SVG (plot.c)
**   hydae help [COMMAND]                 usage texts (help.c)
**   hydae examples                       list the built-in examples
** Exit codes: 0 success, 1 simulation failure, 2 usage or model error,
** 130 / 143 a run ended by SIGINT / SIGTERM (docs/cli.md).
*/
#define _XOPEN_SOURCE 700 /* realpath, PATH_MAX */

#include "cli.h"
#include "outfile.h"
#include "examples.h"
#include "hydae.h"
#include "integrators/integrator.h"
#include "lang/lang.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_SIM_FAILURE = 1, EXIT_USAGE = 2 };

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
    const char *model_file;
    const char *example;
    const char *output;
    const char *solver;
    double t0, t_end, dt, rtol, atol, h_max, h_min, h0;
    int have_t_end, have_dt, have_rtol, have_atol;
    unsigned given;             /* bit i: numeric option i given */
    int max_order;
    int stats, quiet, modes, output_steps, csv_units, no_clock_ticks;
    const char *vars;
    const char *plot, *plot_vars, *phase, *title;
    const char *stats_json;
    char phase_x[256], phase_y[256];
    int n_sets;
    const char **sets;
    const char *settings_file;
    int debug_newton;
    int fmi_cs;                 /* --fmi-cs: an FMU through Co-Simulation */
    int n_settings;
    const char *setting_names[64];
    const char *setting_values[64];
    char setting_storage[64][64];
} run_options;

/* "--integr-tol" or "--integr_tol" -> "integr_tol" if that is a setting. */
static const char *setting_of_option(const char *arg, char *name, size_t size)
{
    if (strncmp(arg, "--", 2) != 0 || strlen(arg + 2) >= size)
        return NULL;
    size_t i = 0;
    for (const char *c = arg + 2; *c; c++)
        name[i++] = *c == '-' ? '_' : *c;
    name[i] = '\0';
    for (int k = 0; hydae_option_name(k); k++)
        if (strcmp(hydae_option_name(k), name) == 0)
            return name;
    return NULL;
}

/* "X,Y" into two names. */
static int split_phase(const char *phase, char *x, char *y, size_t size)
{
    const char *comma = strchr(phase, ',');
    if (!comma || comma == phase || !comma[1] || strchr(comma + 1, ',')
        || (size_t)(comma - phase) >= size || strlen(comma + 1) >= size)
        return usage_error("--phase needs two names X,Y, not '%s'", phase);
    memcpy(x, phase, (size_t)(comma - phase));
    x[comma - phase] = '\0';
    strcpy(y, comma + 1);
    return 0;
}

/* Options taking a text value, and where it goes. */
static const char **text_option(run_options *opt, const char *arg)
{
    static const char *const names[] = { "--example", "-o", "--solver", "--vars", "--plot",
                                         "--plot-vars", "--phase", "--title", "--stats-json" };
    const char **targets[] = { &opt->example, &opt->output, &opt->solver, &opt->vars,
                               &opt->plot, &opt->plot_vars, &opt->phase, &opt->title,
                               &opt->stats_json };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(arg, names[k]) == 0)
            return targets[k];
    return NULL;
}

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
        if (strcmp(arg, "--modes") == 0) {
            opt->modes = 1;
            continue;
        }
        if (strcmp(arg, "--csv-units") == 0) {
            opt->csv_units = 1;
            continue;
        }
        if (strcmp(arg, "--no-clock-ticks") == 0) {
            opt->no_clock_ticks = 1;
            continue;
        }
        if (strcmp(arg, "--debug-newton") == 0) {
            opt->debug_newton = 1;
            continue;
        }
        if (strcmp(arg, "--fmi-cs") == 0) {
            opt->fmi_cs = 1;
            continue;
        }
        if (strcmp(arg, "--settings") == 0) {
            if (i + 1 >= argc)
                return usage_error("option '%s' needs a value", arg);
            opt->settings_file = argv[++i];
            continue;
        }
        if (arg[0] != '-') {
            if (opt->model_file)
                return usage_error("one model file only, not also '%s'", arg);
            opt->model_file = arg;
            continue;
        }
        const char **text_target = text_option(opt, arg);
        int takes_value = text_target || strcmp(arg, "--set") == 0
                          || strcmp(arg, "--max-order") == 0 || strcmp(arg, "--output") == 0;
        int numeric_index = -1;
        for (int k = 0; k < (int)(sizeof numeric / sizeof numeric[0]); k++)
            if (strcmp(arg, numeric[k]) == 0)
                numeric_index = k;
        if (!takes_value && numeric_index < 0) {
            int slot = opt->n_settings;
            if (slot < 64 && setting_of_option(arg, opt->setting_storage[slot], 64)) {
                if (i + 1 >= argc)
                    return usage_error("option '%s' needs a value", arg);
                opt->setting_names[slot] = opt->setting_storage[slot];
                opt->setting_values[slot] = argv[++i];
                opt->n_settings++;
                continue;
            }
            return usage_error("unknown option '%s' (see `hydae --help`, `hydae settings`)",
                               arg);
        }
        if (i + 1 >= argc)
            return usage_error("option '%s' needs a value", arg);
        const char *value = argv[++i];
        if (text_target) {
            *text_target = value;
        } else if (strcmp(arg, "--output") == 0) {
            if (strcmp(value, "grid") != 0 && strcmp(value, "steps") != 0)
                return usage_error("--output is 'grid' or 'steps', not '%s'", value);
            opt->output_steps = strcmp(value, "steps") == 0;
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
            opt->given |= 1u << numeric_index;
            opt->have_t_end |= numeric_index == 1;
            opt->have_dt |= numeric_index == 2;
            opt->have_rtol |= numeric_index == 3;
            opt->have_atol |= numeric_index == 4;
        }
    }
    if (!opt->example == !opt->model_file)
        return usage_error("%s", "run needs one model: a file MODEL.hym or --example NAME "
                           "(see `hydae examples`)");
    if (!opt->plot && (opt->plot_vars || opt->phase || opt->title || opt->no_clock_ticks))
        return usage_error("%s", "--plot-vars, --phase, --title and --no-clock-ticks need "
                           "--plot FILE");
    if (opt->phase && split_phase(opt->phase, opt->phase_x, opt->phase_y, sizeof opt->phase_x))
        return EXIT_USAGE;
    int n_stdout = (opt->output && strcmp(opt->output, "-") == 0)
                   + (opt->plot && strcmp(opt->plot, "-") == 0)
                   + (opt->stats_json && strcmp(opt->stats_json, "-") == 0);
    if (n_stdout > 1)
        return usage_error("%s", "only one of -o, --plot and --stats-json can be '-'");
    return 0;
}

int hy_cli_set_value(hydae_model *model, const char *name, double value)
{
    if (hydae_model_set_param(model, name, value) == 0)
        return 0;
    return hydae_model_set_start(model, name, value);
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
        if (hy_cli_set_value(model, name, value) != 0) {
            fprintf(stderr, "hydae: --set %s: %s\n", opt->sets[i], hydae_model_errmsg(model));
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* A model file's experiment, then the command-line options given. */
static int configure_from_file(hydae_sim *sim, const run_options *opt,
                               const hy_lang_experiment *experiment)
{
    if (hy_lang_experiment_apply(experiment, sim, NULL)) {
        fprintf(stderr, "hydae: %s: experiment: %s\n", opt->model_file, hydae_sim_errmsg(sim));
        return EXIT_USAGE;
    }
    static const char *const names[] = { "t0", "t_end", "dt", "rtol", "atol",
                                         "h_max", "h_min", "h0" };
    const double values[] = { opt->t0, opt->t_end, opt->dt, opt->rtol, opt->atol,
                              opt->h_max, opt->h_min, opt->h0 };
    for (int i = 0; i < 8; i++) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", values[i]);
        if ((opt->given >> i & 1u) && hydae_sim_set_option(sim, names[i], text)) {
            fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
            return EXIT_USAGE;
        }
    }
    if (opt->have_rtol && !opt->have_atol) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", opt->rtol * 1e-2);
        if (hydae_sim_set_option(sim, "atol", text)) {
            fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
            return EXIT_USAGE;
        }
    }
    return 0;
}

static int configure(hydae_sim *sim, const run_options *opt, const hydae_example *ex,
                     const hy_lang_experiment *experiment)
{
    if (ex) {
        double t_end = opt->have_t_end ? opt->t_end : ex->t_end;
        double dt = opt->have_dt ? opt->dt : ex->dt_out;
        double rtol = opt->have_rtol ? opt->rtol : ex->rtol;
        double atol = opt->have_atol ? opt->atol
                                     : (opt->have_rtol ? opt->rtol * 1e-2 : ex->atol);
        if (hydae_sim_set_time(sim, opt->t0, t_end) || hydae_sim_set_output_interval(sim, dt)
            || hydae_sim_set_tolerances(sim, rtol, atol)
            || hydae_sim_set_step_limits(sim, opt->h_min, opt->h_max, opt->h0)) {
            fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
            return EXIT_USAGE;
        }
    } else if (configure_from_file(sim, opt, experiment)) {
        return EXIT_USAGE;
    }
    if ((opt->max_order > 0 && hydae_sim_set_max_order(sim, opt->max_order))
        || (opt->solver && hydae_sim_set_integrator(sim, opt->solver))
        || hydae_sim_set_output_steps(sim, opt->output_steps)
        || (opt->vars && hydae_sim_check_vars(sim, opt->vars))
        || (opt->plot_vars && hydae_sim_check_vars(sim, opt->plot_vars))
        || (opt->phase && hydae_sim_check_vars(sim, opt->phase))
        || (opt->settings_file && hydae_sim_load_settings(sim, opt->settings_file))
        || (opt->debug_newton && hydae_sim_set_debug_newton(sim, stderr))) {
        fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
        return EXIT_USAGE;
    }
    /* Command-line settings last: they override the example and the file. */
    for (int i = 0; i < opt->n_settings; i++)
        if (hydae_sim_set_option(sim, opt->setting_names[i], opt->setting_values[i])) {
            fprintf(stderr, "hydae: --%s: %s\n", opt->setting_names[i], hydae_sim_errmsg(sim));
            return EXIT_USAGE;
        }
    return 0;
}

static int is_stdout(const char *path)
{
    return strcmp(path, "-") == 0;
}

/* Does path end in ext (".mat"), in any case? */
static int has_extension(const char *path, const char *ext)
{
    size_t len = strlen(path), ext_len = strlen(ext);
    if (len <= ext_len)
        return 0;
    for (size_t i = 0; i < ext_len; i++) {
        char c = path[len - ext_len + i];
        if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != ext[i])
            return 0;
    }
    return 1;
}

/* Close an output; a write error turns a success into a failure. keep:
** the file goes to its name (see outfile.h). */
static int close_output(hy_outfile *o, int status, int keep)
{
    if (!o->file)
        return status;
    if (hy_outfile_close(o, keep) != 0 && !status) {
        fprintf(stderr, "hydae: error writing the results to '%s': %s\n", o->path,
                strerror(errno));
        return EXIT_SIM_FAILURE;
    }
    return status;
}

/* SIGINT and SIGTERM during a run: the run stops at its next step
** boundary with every output complete and marked as stopped early; a
** second signal ends the process at once (SA_RESETHAND). */
static hydae_sim *volatile interrupted_sim;
static volatile sig_atomic_t caught_signal;

static void on_signal(int signal_number)
{
    caught_signal = signal_number;
    if (interrupted_sim)
        hydae_sim_interrupt(interrupted_sim);
}

static void catch_signals(hydae_sim *sim, struct sigaction old[2])
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    caught_signal = 0;
    interrupted_sim = sim;
    sigaction(SIGINT, &action, &old[0]);
    sigaction(SIGTERM, &action, &old[1]);
}

static void release_signals(const struct sigaction old[2])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    interrupted_sim = NULL;
}

/* The run itself, signals caught around it: an exit status. */
static int run_simulation(hydae_sim *sim, const char *path)
{
    struct sigaction old[2];
    catch_signals(sim, old);
    int run_status = hydae_sim_run(sim);
    release_signals(old);
    if (!run_status && hydae_sim_stop_reason(sim)) /* an action ended the run (an FMU's
                                                   ** terminateSimulation, say) */
        fprintf(stderr, "hydae: %s\n", hydae_sim_stop_reason(sim));
    if (run_status == HYDAE_ERR_IO) {
        fprintf(stderr, "hydae: error writing the results to '%s' (or the plot): %s\n", path,
                hydae_sim_errmsg(sim));
        return EXIT_SIM_FAILURE;
    }
    if (run_status == HYDAE_INTERRUPTED) {
        int signal_number = caught_signal ? caught_signal : SIGINT;
        fprintf(stderr, "hydae: %s: %s\n", signal_number == SIGTERM ? "SIGTERM" : "SIGINT",
                hydae_sim_errmsg(sim));
    } else if (run_status) {
        fprintf(stderr, "hydae: simulation failed: %s\n", hydae_sim_errmsg(sim));
    }
    if (run_status && !is_stdout(path))
        fprintf(stderr, "hydae: results up to t = %.17g are in %s (marked as stopped early)\n",
                hydae_sim_time(sim), path);
    if (run_status == HYDAE_INTERRUPTED)
        return 128 + (caught_signal ? caught_signal : SIGINT);
    return run_status ? EXIT_SIM_FAILURE : 0;
}

/* Results (CSV or MAT), plot and progress bar. */
static int add_sinks(hydae_sim *sim, const run_options *opt, const hy_outfile *results,
                     const hy_outfile *plot, int is_mat)
{
    int status;
    if (is_mat)
        status = hydae_sim_add_mat(sim, results->file, opt->vars, opt->modes);
    else if (opt->csv_units)
        status = hydae_sim_add_csv_units(sim, results->file, opt->vars, opt->modes);
    else if (opt->vars || opt->modes)
        status = hydae_sim_add_csv_vars(sim, results->file, opt->vars, opt->modes);
    else
        status = hydae_sim_add_csv(sim, results->file);
    if (!status && plot->file) {
        hydae_plot_options plot_opt = { opt->plot_vars ? opt->plot_vars : opt->vars,
                                        opt->phase ? opt->phase_x : NULL,
                                        opt->phase ? opt->phase_y : NULL, opt->title,
                                        opt->no_clock_ticks };
        status = hydae_sim_add_plot(sim, plot->file, &plot_opt);
    }
    if (!status && !opt->quiet && isatty(fileno(stderr)))
        status = hydae_sim_add_progress(sim, stderr);
    if (status == HYDAE_ERR_NOMEM) {
        fprintf(stderr, "hydae: out of memory\n");
        return EXIT_SIM_FAILURE;
    }
    if (status) {
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
        return status;
    const hydae_example *ex = NULL;
    int from_file = 0;
    hy_lang_experiment experiment;
    hydae_model *model = NULL;
    hy_fmu *fmu = NULL;
    char model_name[256];
    if (opt.example) {
        ex = hydae_example_find(opt.example);
        if (!ex)
            return usage_error("no built-in example '%s' (see `hydae examples`)", opt.example);
        model = ex->build();
        if (!model) {
            fprintf(stderr, "hydae: could not build example '%s'\n", ex->name);
            return EXIT_USAGE;
        }
        snprintf(model_name, sizeof model_name, "%s", ex->name);
    } else if (has_extension(opt.model_file, ".fmu")) {
        /* The FMU is attached to the model: freed (and its directory
        ** removed) with it. */
        model = hy_cli_load_fmu(opt.model_file, opt.fmi_cs, opt.have_dt ? opt.dt : 0.0,
                                &experiment, &fmu);
        if (!model)
            return EXIT_USAGE;
        from_file = 1;
    } else {
        int n_errors = 0;
        hy_lang_unit *unit = hy_lang_compile_file_fmi(opt.model_file, stderr, &experiment,
                                                      &n_errors, hy_cli_fmu_ops());
        if (!unit) {
            fprintf(stderr, "hydae: %s: %d error%s; nothing was simulated\n", opt.model_file,
                    n_errors, n_errors == 1 ? "" : "s");
            return EXIT_USAGE;
        }
        /* The compiled code is attached to the model: freed with it. */
        model = hy_lang_unit_model(unit);
        from_file = 1;
    }
    if (from_file) {
        /* The file's stem names the default results. */
        const char *base = strrchr(opt.model_file, '/');
        base = base ? base + 1 : opt.model_file;
        snprintf(model_name, sizeof model_name, "%s", base);
        char *dot = strrchr(model_name, '.');
        if (dot && dot != model_name)
            *dot = '\0';
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
    status = configure(sim, &opt, ex, from_file ? &experiment : NULL);
    char default_path[PATH_MAX];
    const char *path = opt.output;
    if (!path) {
        snprintf(default_path, sizeof default_path, "%s.csv", model_name);
        path = default_path;
    }
    hy_outfile results = { .path = path }, plot = { .path = opt.plot },
               stats = { .path = opt.stats_json };
    int is_mat = has_extension(path, ".mat");
    if (!status && is_mat && opt.csv_units)
        status = usage_error("%s", "--csv-units is for CSV results, not a .mat file (which "
                             "has the units in its description matrix)");
    if (!status && hydae_sim_validate(sim)) {
        fprintf(stderr, "hydae: %s\n", hydae_sim_errmsg(sim));
        status = EXIT_USAGE;
    }
    const hy_named_file files[] = { { "the model file", opt.model_file, 0 },
                                    { "--settings", opt.settings_file, 0 },
                                    { "-o", path, 1 }, { "--plot", opt.plot, 1 },
                                    { "--stats-json", opt.stats_json, 1 } };
    if (!status)
        status = hy_check_distinct_files(files, 5, "hydae");
    if (!status)
        status = hy_outfile_open(&results, is_mat ? "wb" : "w", "hydae");
    if (!status)
        status = hy_outfile_open(&plot, "w", "hydae");
    if (!status)
        status = hy_outfile_open(&stats, "w", "hydae");
    if (!status)
        status = add_sinks(sim, &opt, &results, &plot, is_mat);
    /* After a run (also a failed one) the outputs go to their names;
    ** before it, nothing replaces an existing file. */
    int ran = !status;
    if (ran) {
        status = run_simulation(sim, path);
        if (status && fmu)
            hy_cli_fmu_report(fmu);
        if (opt.stats)
            hydae_sim_print_stats(sim, stderr);
        if (opt.stats)
            hy_cli_print_native_stats(model, stderr);
        hydae_stats run_stats;
        hydae_sim_get_stats(sim, &run_stats);
        if (run_stats.n_stiff_detections > 0 && !opt.quiet)
            fprintf(stderr, "hydae: warning: the explicit integrator found the problem stiff "
                    "from t = %.6g on (%ld times): a method for stiff problems (--solver "
                    "VSTIFF, DSTIFF or RADAU) takes far fewer steps there\n",
                    run_stats.t_first_stiff, run_stats.n_stiff_detections);
        int json_status = stats.file ? hydae_sim_write_stats_json(sim, stats.file) : 0;
        (void)json_status; /* a failed write shows in close_output, through ferror */
    }
    status = close_output(&results, status, ran);
    status = close_output(&plot, status, ran);
    status = close_output(&stats, status, ran);
    if (!status && !opt.quiet && !is_stdout(path) && !(plot.path && is_stdout(plot.path))
        && !(stats.path && is_stdout(stats.path))) {
        char resolved[PATH_MAX];
        const char *shown = realpath(path, resolved) ? resolved : path;
        printf("hydae: %s simulated to t = %g; results in %s\n", model_name,
               hydae_sim_time(sim), shown);
        if (plot.path) {
            shown = realpath(plot.path, resolved) ? resolved : plot.path;
            printf("hydae: plot in %s\n", shown);
        }
    }
    hydae_sim_free(sim);
    hydae_model_free(model);
    return status;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        hy_cli_usage(stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0
        || strcmp(command, "help") == 0) {
        if (strcmp(command, "help") == 0 && argc > 2)
            return hy_cli_help(argv[2]);
        hy_cli_usage(stdout);
        return 0;
    }
    if (hy_cli_asks_help(argc - 2, argv + 2))
        return hy_cli_help(command);
    int asked_native = 0, backend_status = hy_cli_backend_options(&argc, argv, &asked_native);
    if (backend_status)
        return backend_status;
    if (strcmp(command, "cache") == 0)
        return hy_cli_cache(argc - 2, argv + 2);
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        printf("hydae %s\n", hydae_version());
        return 0;
    }
    if (strcmp(command, "run") == 0)
        return command_run(argc - 2, argv + 2);
    if (strcmp(command, "plot") == 0)
        return hy_cli_plot(argc - 2, argv + 2);
    if (strcmp(command, "examples") == 0)
        return list_examples();
    if (strcmp(command, "solvers") == 0)
        return list_solvers();
    if (strcmp(command, "settings") == 0)
        return hy_cli_list_settings();
    if (strcmp(command, "check") == 0) {
        if (argc != 3 || argv[2][0] == '-')
            return usage_error("%s", "check needs one model file: hydae check MODEL.hym");
        if (hy_lang_check_report_fmi(argv[2], stdout, hy_cli_fmu_ops()) != 0)
            return EXIT_USAGE;
        return asked_native ? hy_cli_check_backend(argv[2]) : 0;
    }
    if (strcmp(command, "converge") == 0)
        return hy_cli_converge(argc - 2, argv + 2);
    if (strcmp(command, "sweep") == 0)
        return hy_cli_sweep(argc - 2, argv + 2);
    if (strcmp(command, "export") == 0)
        return hy_cli_export(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", command);
}

int main(int argc, char **argv)
{
    /* Every command: a failed write to standard output is an error. */
    return hy_finish_stdout(dispatch(argc, argv), "hydae");
}
