/*
** Fault injection through the allocator hook (hydae_set_allocator, issue 12
** item 6; SQLite's and Lua's test builds do the same): an allocator that
** counts every allocation and reallocation and fails the N-th one. A run
** without failures gives each scenario's count and reference results;
** then, for N = 1 .. count, the scenario is repeated with the N-th call
** failing ("only": the code goes on past a failure it absorbed) and with
** every call from the N-th on failing ("from": the error paths themselves
** cannot allocate). Each
** repetition must end in one of two ways:
**  - success, with the same result bytes (CSV, and MAT and SVG plot for
**    the first scenario) as the reference run;
**  - a clean failure: the call that failed returns HYDAE_ERR_NOMEM (or NULL
**    where the API returns an object: then the message on the model, or
**    the compiler's diagnostics, says "out of memory"), and the results
**    written so far are marked as incomplete (the CSV's last line is
**    "# hydae: stopped early ... out of memory", the MAT file holds the
**    stopped-early matrix, the plot its note) or are empty.
** In both cases, once everything is freed, no block the library allocated
** is left (the allocator counts the live blocks; LeakSanitizer sees the
** same under the ASan build), and nothing crashes or touches freed memory
** (ASan, UBSan).
**
** Scenarios, short runs of small models:
**  - hym_events: examples/bouncing_ball.hym compiled and run to t = 1.5
**    (two bounces: a guarded self-transition with an action), settings
**    from an XML file (when built with expat), CSV, MAT and SVG plot;
**  - hym_mechanics: examples/string_pendulum_cartesian.hym to t = 1.2 (a
**    mechanical mode, index 3, left and entered again: two events);
**  - c_sparse: the C example brusselator (M = 6, 12 unknowns, its
**    Jacobian pattern and analytic sparse Jacobian) with linear_solver =
**    klu when KLU is compiled in (its allocations go through the hook),
**    band otherwise, DSTIFF to t = 0.5; c_sparse_vstiff the same with
**    VSTIFF;
**  - more of the engine, each through one event or two: x_algebraic
**    (algebraic_loop.hym: consistent initialisation of a loop, a time
**    event), x_sampled (sampled_pi.hym: a sample clock), x_simultaneous
**    (simultaneous_events.hym: several transitions at one instant),
**    x_rectifier (ideal_rectifier.hym: a configuration without states),
**    x_mech_ode (pendulum_cartesian.hym with VSTIFF: the ODE form of a
**    mechanical mode), x_mstiff, x_abam, x_rk45 (the bouncing ball with
**    those integrators).
** Every N of the build phase (compiling, creating the sim, the settings
** and sinks) is tried; the run phase's N too unless there are more than
** RUN_PHASE_BUDGET, then a stride. Arguments: "full" (every N, whatever
** the count), SCENARIO (that one), "SCENARIO N [rest]" (one repetition,
** saying how it ended); HYDAE_ALLOC_TRACE in the environment prints each
** N before it is tried and the failures that were absorbed.
*/
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "check.h"
#include "examples.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "fault_alloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* The failing allocator                                               */

static fault_allocator allocator;

static void allocator_arm(long fail_at, int fail_rest)
{
    allocator.n_calls = 0;
    allocator.fail_at = fail_at;
    allocator.fail_rest = fail_rest;
    allocator.n_failed = 0;
}

/* ------------------------------------------------------------------ */
/* One repetition of a scenario                                        */

typedef enum phase { PHASE_BUILD, PHASE_RUN, PHASE_DONE } phase;

typedef struct outcome {
    int status;          /* 0, or the status of the call that failed */
    phase failed_in;     /* PHASE_DONE on success */
    const char *call;    /* the call that failed */
    char message[1024];  /* its message (model, sim or diagnostics) */
    char *csv, *mat, *svg; /* the result files' bytes (malloc'd here) */
    size_t csv_size, mat_size, svg_size;
    long n_build_calls;  /* allocator calls up to the start of the run */
} outcome;

static void outcome_free(outcome *o)
{
    free(o->csv);
    free(o->mat);
    free(o->svg);
    memset(o, 0, sizeof *o);
}

static char *file_bytes(FILE *f, size_t *size)
{
    *size = 0;
    if (!f)
        return NULL;
    fflush(f);
    long length = ftell(f);
    char *bytes = malloc(length > 0 ? (size_t)length + 1 : 1);
    if (!bytes)
        return NULL;
    rewind(f);
    size_t n = length > 0 ? fread(bytes, 1, (size_t)length, f) : 0;
    bytes[n] = '\0';
    *size = n;
    return bytes;
}

static void fail(outcome *o, int status, phase in, const char *call, const char *message)
{
    o->status = status;
    o->failed_in = in;
    o->call = call;
    snprintf(o->message, sizeof o->message, "%s", message ? message : "");
}

static char source_dir[1024];
/* A settings file (Param_Transient) the first scenario loads; "" when the
** build has no expat. */
static char settings_path[64];

typedef struct scenario {
    const char *name;
    const char *model_file; /* examples/NAME.hym (or a path from the source
                               tree with its .hym), or NULL: the C brusselator */
    double t_end, dt;
    int with_mat, with_settings;
    const char *linear_solver;
    const char *integrator; /* NULL: the default (DSTIFF) */
} scenario;

/* Settings and sinks, then the run. Fills o; 0 when the run succeeded. */
static void run_sim(const scenario *sc, hydae_model *m, const hy_lang_experiment *ex, FILE *diag,
                    outcome *o, FILE *csv, FILE *mat, FILE *svg)
{
    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s) {
        fail(o, status, PHASE_BUILD, "hydae_sim_create", hydae_model_errmsg(m));
        return;
    }
    const char *call = NULL;
    if (ex && (status = hy_lang_experiment_apply(ex, s, diag)) != 0)
        call = "hy_lang_experiment_apply";
    else if (sc->with_settings && settings_path[0]
             && (status = hydae_sim_load_settings(s, settings_path)) != 0)
        call = "hydae_sim_load_settings";
    else if ((status = hydae_sim_set_time(s, 0.0, sc->t_end)) != 0)
        call = "hydae_sim_set_time";
    else if ((status = hydae_sim_set_output_interval(s, sc->dt)) != 0)
        call = "hydae_sim_set_output_interval";
    else if (sc->linear_solver
             && (status = hydae_sim_set_option(s, "linear_solver", sc->linear_solver)) != 0)
        call = "hydae_sim_set_option";
    else if (sc->integrator && (status = hydae_sim_set_integrator(s, sc->integrator)) != 0)
        call = "hydae_sim_set_integrator";
    else if ((status = hydae_sim_add_csv(s, csv)) != 0)
        call = "hydae_sim_add_csv";
    else if (mat && (status = hydae_sim_add_mat(s, mat, NULL, 1)) != 0)
        call = "hydae_sim_add_mat";
    else if (svg && (status = hydae_sim_add_plot(s, svg, NULL)) != 0)
        call = "hydae_sim_add_plot";
    if (call) {
        fail(o, status, PHASE_BUILD, call, hydae_sim_errmsg(s));
    } else {
        o->n_build_calls = allocator.n_calls;
        status = hydae_sim_run(s);
        if (status != 0)
            fail(o, status, PHASE_RUN, "hydae_sim_run", hydae_sim_errmsg(s));
    }
    hydae_sim_free(s);
}

/* Temporary file number i, empty: created once, emptied for each
** repetition (thousands of them). */
enum { FILE_DIAG, FILE_CSV, FILE_MAT, FILE_SVG, N_FILES };
static FILE *temporary[N_FILES];

static FILE *empty_file(int i)
{
    if (!temporary[i] && !(temporary[i] = tmpfile())) {
        fprintf(stderr, "no temporary files\n");
        exit(1);
    }
    FILE *f = temporary[i];
    fflush(f);
    rewind(f);
    if (ftruncate(fileno(f), 0) != 0) {
        fprintf(stderr, "cannot empty a temporary file\n");
        exit(1);
    }
    clearerr(f);
    return f;
}

static void run_scenario(const scenario *sc, outcome *o)
{
    memset(o, 0, sizeof *o);
    o->failed_in = PHASE_DONE;
    FILE *diag = empty_file(FILE_DIAG), *csv = empty_file(FILE_CSV);
    FILE *mat = sc->with_mat ? empty_file(FILE_MAT) : NULL;
    FILE *svg = sc->with_mat ? empty_file(FILE_SVG) : NULL;
    hydae_model *m = NULL;
    hy_lang_experiment ex;
    if (sc->model_file) {
        char path[1200];
        if (strchr(sc->model_file, '/'))
            snprintf(path, sizeof path, "%s/%s", source_dir, sc->model_file);
        else
            snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, sc->model_file);
        int n_errors = 0;
        hy_lang_unit *unit = hy_lang_compile_file(path, diag, &ex, &n_errors);
        if (!unit) {
            size_t size;
            char *text = file_bytes(diag, &size);
            fail(o, HYDAE_ERR_NOMEM, PHASE_BUILD, "hy_lang_compile_file", text);
            free(text);
        } else {
            m = hy_lang_unit_model(unit);
        }
    } else {
        m = example_brusselator_sized(6, 1);
        if (!m)
            fail(o, HYDAE_ERR_NOMEM, PHASE_BUILD, "example_brusselator_sized", "out of memory");
    }
    if (m)
        run_sim(sc, m, sc->model_file ? &ex : NULL, diag, o, csv, mat, svg);
    hydae_model_free(m);
    o->csv = file_bytes(csv, &o->csv_size);
    o->mat = file_bytes(mat, &o->mat_size);
    o->svg = file_bytes(svg, &o->svg_size);
}

/* ------------------------------------------------------------------ */
/* The checks                                                          */

static int n_reported;

#define REPORT(...)                                                          \
    do {                                                                     \
        check_n_failed++;                                                    \
        if (++n_reported <= 30) {                                            \
            fprintf(stderr, "FAIL: ");                                       \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

static const char *phase_name(phase p)
{
    return p == PHASE_BUILD ? "build" : p == PHASE_RUN ? "run" : "done";
}

static const char *last_line(const char *text, size_t size)
{
    if (size == 0)
        return text;
    size_t end = size - 1; /* the final '\n' */
    while (end > 0 && text[end - 1] != '\n')
        end--;
    return text + end;
}

static int has_bytes(const char *hay, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(hay + i, needle, n) == 0)
            return 1;
    return 0;
}

static void check_outcome(const scenario *sc, long fail_at, int fail_rest, const outcome *ref,
                          const outcome *o)
{
    const char *how = fail_rest ? "from" : "only";
    long leaked = allocator.n_live;
    if (leaked != 0)
        REPORT("%s, allocation %ld (%s) failing: %ld blocks leaked (failed in %s, %s: %s)",
               sc->name, fail_at, how, leaked, phase_name(o->failed_in),
               o->call ? o->call : "-", o->message);
    allocator.n_live = 0;
    if (o->status == 0) {
        if (o->csv_size != ref->csv_size || memcmp(o->csv, ref->csv, o->csv_size) != 0
            || o->mat_size != ref->mat_size
            || (o->mat_size && memcmp(o->mat, ref->mat, o->mat_size) != 0)
            || o->svg_size != ref->svg_size
            || (o->svg_size && memcmp(o->svg, ref->svg, o->svg_size) != 0))
            REPORT("%s, allocation %ld (%s) failing: success with other results "
                   "(csv %zu bytes, reference %zu; mat %zu, reference %zu; svg %zu, "
                   "reference %zu)", sc->name, fail_at, how, o->csv_size, ref->csv_size,
                   o->mat_size, ref->mat_size, o->svg_size, ref->svg_size);
        else
            check_n_passed++;
        return;
    }
    if (o->status != HYDAE_ERR_NOMEM)
        REPORT("%s, allocation %ld (%s) failing: %s returned %d (%s), not HYDAE_ERR_NOMEM: %s",
               sc->name, fail_at, how, o->call, o->status, hydae_status_string(o->status),
               o->message);
    else if (!strstr(o->message, "out of memory"))
        REPORT("%s, allocation %ld (%s) failing: %s: the message does not say out of "
               "memory: '%s'", sc->name, fail_at, how, o->call, o->message);
    else
        check_n_passed++;
    if (o->csv_size > 0) {
        const char *last = last_line(o->csv, o->csv_size);
        if (strncmp(last, "# hydae: stopped early", 22) != 0 || !strstr(last, "out of memory"))
            REPORT("%s, allocation %ld (%s) failing: the CSV (%zu bytes) does not end with "
                   "the stopped-early line naming out of memory: '%.200s'",
                   sc->name, fail_at, how, o->csv_size, last);
        else
            check_n_passed++;
    }
    if (o->svg_size > 0) {
        if (!has_bytes(o->svg, o->svg_size, "stopped early"))
            REPORT("%s, allocation %ld (%s) failing: the plot (%zu bytes) is not marked as "
                   "stopped early", sc->name, fail_at, how, o->svg_size);
        else
            check_n_passed++;
    }
    if (o->mat_size > 0) {
        if (!has_bytes(o->mat, o->mat_size, "stopped early"))
            REPORT("%s, allocation %ld (%s) failing: the MAT file (%zu bytes) is not "
                   "marked as stopped early", sc->name, fail_at, how, o->mat_size);
        else
            check_n_passed++;
    }
}

/* Repetitions per scenario and way of failing, beyond the build phase
** (all of them today: 153 at most; every N of both ways of failing of the
** four scenarios takes 8 s under ASan). */
enum { RUN_PHASE_BUDGET = 1000 };

static void test_scenario(const scenario *sc, int full)
{
    outcome ref;
    allocator_arm(0, 0);
    allocator.n_live = 0;
    run_scenario(sc, &ref);
    if (ref.status != 0 && ref.call && strcmp(ref.call, "hydae_sim_load_settings") == 0) {
        printf("%s: no settings file (%s)\n", sc->name, ref.message); /* built without expat */
        settings_path[0] = '\0';
        outcome_free(&ref);
        allocator_arm(0, 0);
        run_scenario(sc, &ref);
    }
    long n_total = allocator.n_calls;
    CHECK(ref.status == 0, "%s: the reference run failed: %s: %s", sc->name,
          ref.call ? ref.call : "-", ref.message);
    CHECK(allocator.n_live == 0, "%s: the reference run leaves %ld blocks", sc->name,
          allocator.n_live);
    CHECK(ref.csv_size > 0 && !strstr(ref.csv, "stopped early"), "%s: reference CSV", sc->name);
    if (ref.status != 0) {
        outcome_free(&ref);
        return;
    }
    long n_build = ref.n_build_calls, n_run = n_total - n_build;
    long stride = 1;
    if (!full && n_run > RUN_PHASE_BUDGET)
        stride = (n_run + RUN_PHASE_BUDGET - 1) / RUN_PHASE_BUDGET;
    printf("%s: %ld allocation calls (build %ld, run %ld); run phase every %ld%s\n", sc->name,
           n_total, n_build, n_run, stride, stride > 1 ? "" : " (all)");
    long n_tried = 0, n_clean = 0;
    int trace = getenv("HYDAE_ALLOC_TRACE") != NULL;
    for (int fail_rest = 0; fail_rest <= 1; fail_rest++) {
        for (long n = 1; n <= n_total;) {
            outcome o;
            if (trace)
                fprintf(stderr, "%s %ld%s\n", sc->name, n, fail_rest ? " rest" : "");
            allocator_arm(n, fail_rest);
            run_scenario(sc, &o);
            allocator_arm(0, 0);
            check_outcome(sc, n, fail_rest, &ref, &o);
            n_tried++;
            n_clean += o.status != 0;
            if (trace && o.status == 0)
                fprintf(stderr, "%s %ld%s: absorbed, same results\n", sc->name, n,
                        fail_rest ? " rest" : "");
            outcome_free(&o);
            n += n <= n_build ? 1 : stride;
        }
    }
    printf("%s: %ld repetitions, %ld ended in a clean failure\n", sc->name, n_tried, n_clean);
    outcome_free(&ref);
}

static void write_settings_file(void)
{
    snprintf(settings_path, sizeof settings_path, "/tmp/hydae_alloc_fail_XXXXXX");
    int fd = mkstemp(settings_path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "no temporary settings file\n");
        exit(1);
    }
    fputs("<?xml version=\"1.0\"?>\n<Settings>\n"
          "  <Param_Transient h_max=\"0.25\" max_order=\"4\"/>\n</Settings>\n", f);
    fclose(f);
}

/* One repetition, told what failed (to study a failure: "SCENARIO N [rest]"). */
static void test_one(const scenario *sc, long fail_at, int fail_rest)
{
    outcome ref, o;
    allocator_arm(0, 0);
    run_scenario(sc, &ref);
    allocator.n_live = 0;
    allocator_arm(fail_at, fail_rest);
    run_scenario(sc, &o);
    allocator_arm(0, 0);
    printf("%s, allocation %ld failing (%s): status %d, failed in %s, %s: %s\n", sc->name,
           fail_at, fail_rest ? "and the rest" : "only", o.status, phase_name(o.failed_in),
           o.call ? o.call : "-", o.message);
    check_outcome(sc, fail_at, fail_rest, &ref, &o);
    outcome_free(&ref);
    outcome_free(&o);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int full = argc > 1 && strcmp(argv[1], "full") == 0;
    lang_test_source_dir(source_dir, sizeof source_dir);
    write_settings_file();
    hydae_set_allocator(fault_alloc, &allocator);
    static const scenario scenarios[] = {
        { "hym_events", "bouncing_ball", 1.5, 0.05, 1, 1, NULL, NULL },
        { "hym_mechanics", "string_pendulum_cartesian", 1.2, 0.05, 0, 0, NULL, NULL },
#ifdef HYDAE_HAVE_KLU
        { "c_sparse", NULL, 0.5, 0.05, 0, 0, "klu", NULL },
        { "c_sparse_vstiff", NULL, 0.5, 0.05, 0, 0, "klu", "VSTIFF" },
        { "c_sparse_radau", NULL, 0.5, 0.05, 0, 0, "klu", "RADAU" },
#else
        { "c_sparse", NULL, 0.5, 0.05, 0, 0, "band", NULL },
        { "c_sparse_vstiff", NULL, 0.5, 0.05, 0, 0, "band", "VSTIFF" },
        { "c_sparse_radau", NULL, 0.5, 0.05, 0, 0, "band", "RADAU" },
#endif
        { "x_algebraic", "algebraic_loop", 0.7, 0.05, 0, 0, NULL, NULL },
        { "x_sampled", "sampled_pi", 0.35, 0.05, 0, 0, NULL, NULL },
        { "x_simultaneous", "simultaneous_events", 2.2, 0.1, 0, 0, NULL, NULL },
        { "x_rectifier", "ideal_rectifier", 0.03, 0.005, 0, 0, NULL, NULL },
        { "x_mech_ode", "pendulum_cartesian", 0.5, 0.05, 0, 0, NULL, "VSTIFF" },
        { "x_mstiff", "bouncing_ball", 1.5, 0.05, 0, 0, NULL, "MSTIFF" },
        { "x_abam", "bouncing_ball", 1.5, 0.05, 0, 0, NULL, "ABAM" },
        { "x_rk45", "bouncing_ball", 1.5, 0.05, 0, 0, NULL, "RK45" },
        { "x_radau", "bouncing_ball", 1.5, 0.05, 0, 0, NULL, "RADAU" },
        { "x_arrays", "tests/fuzz/corpus/fuzz_model/arrays_spelled.hym", 1.5, 0.5, 0, 0, NULL,
          NULL },
        { "x_components", "rlc_circuit", 0.5, 0.1, 0, 0, NULL, NULL },
        { "x_library", "lowpass", 0.01, 0.005, 0, 0, NULL, NULL },
        { "x_component_modes", "bridge_rectifier", 0.012, 0.002, 0, 0, NULL, NULL },
        { "x_component_arrays", "tests/fuzz/corpus/fuzz_model/component_arrays.hym", 1.0, 0.5,
          0, 0, NULL, NULL },
        { "x_builtin_events", "tests/fuzz/corpus/fuzz_model/builtin_events.hym", 2.2, 0.5, 0, 0,
          NULL, NULL },
        { "x_structure", "changeover", 1.5, 0.5, 0, 0, NULL, NULL },
        { "x_hierarchy", "tests/fuzz/corpus/fuzz_model/hierarchy_deep.hym", 10.5, 0.5, 0, 0,
          NULL, NULL },
        { "x_component_in_mode", "tests/fuzz/corpus/fuzz_model/diode_in_mode.hym", 5.0, 0.5, 0,
          0, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (argc < 2 || full)
            test_scenario(&scenarios[i], full);
        else if (strcmp(argv[1], scenarios[i].name) == 0 && argc > 2)
            test_one(&scenarios[i], atol(argv[2]), argc > 3 && strcmp(argv[3], "rest") == 0);
        else if (strcmp(argv[1], scenarios[i].name) == 0)
            test_scenario(&scenarios[i], 0);
    }
    hydae_set_allocator(NULL, NULL);
    if (settings_path[0])
        remove(settings_path);
    for (int i = 0; i < N_FILES; i++)
        if (temporary[i])
            fclose(temporary[i]);
    if (n_reported > 30)
        fprintf(stderr, "(%d failures reported, the first 30 shown)\n", n_reported);
    return CHECK_DONE();
}
