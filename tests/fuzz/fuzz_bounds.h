/*
** A bounded simulation for the fuzz targets (fuzz_model, fuzz_settings_xml):
** whatever the input's settings, a run takes at most max_steps steps (and
** FUZZ_MAX_STEPS), spans at most max_span seconds of model time (a finite
** span is shortened), emits at most FUZZ_MAX_ROWS result rows, keeps the
** cascade and Zeno limits at their defaults or below, and is interrupted
** (hydae_sim_interrupt) after FUZZ_CPU_SECONDS of CPU time. A run still going when libFuzzer's
** -timeout strikes is a loop that none of these bounds reaches: a finding.
**
** The CPU timer is ITIMER_VIRTUAL (SIGVTALRM): libFuzzer keeps SIGALRM
** (ITIMER_REAL) for its own -timeout.
*/
#ifndef HY_FUZZ_BOUNDS_H
#define HY_FUZZ_BOUNDS_H

#define _POSIX_C_SOURCE 200809L

#include "hydae.h"
#include "sim/sim.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

enum { FUZZ_MAX_STEPS = 2000, FUZZ_MAX_ROWS = 4000, FUZZ_MAX_CASCADE = 100,
       FUZZ_MAX_ZENO_EVENTS = 100, FUZZ_CPU_SECONDS = 2 };

static hydae_sim *volatile fuzz_running_sim;
/* HYDAE_FUZZ_VERBOSE set: each run's outcome on stderr (to see what the
** seeds reach; never while fuzzing, it is slow). */
static int fuzz_verbose;

static inline void fuzz_on_cpu_timer(int signal_number)
{
    (void)signal_number;
    if (fuzz_running_sim)
        hydae_sim_interrupt(fuzz_running_sim);
}

/* Once, from LLVMFuzzerInitialize. */
static inline void fuzz_bounds_init(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = fuzz_on_cpu_timer;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGVTALRM, &action, NULL);
    fuzz_verbose = getenv("HYDAE_FUZZ_VERBOSE") != NULL;
}

typedef struct fuzz_row_budget {
    long n_rows;
} fuzz_row_budget;

static inline int fuzz_count_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    (void)t;
    (void)values;
    fuzz_row_budget *budget = user;
    return ++budget->n_rows > FUZZ_MAX_ROWS;
}

/* Clamp the settings the input chose (from a model's experiment block or
** an XML file) to the fuzzing bounds. Reads and writes the sim's fields
** (sim/sim.h): the public API has setters but no getters for them. */
static inline void fuzz_clamp_settings(hydae_sim *s, long max_steps, double max_span)
{
    if (max_steps > FUZZ_MAX_STEPS)
        max_steps = FUZZ_MAX_STEPS;
    if (s->set.max_steps > max_steps)
        s->set.max_steps = max_steps;
    if (s->set.cascade_limit > FUZZ_MAX_CASCADE)
        s->set.cascade_limit = FUZZ_MAX_CASCADE;
    if (s->set.zeno_events > FUZZ_MAX_ZENO_EVENTS)
        s->set.zeno_events = FUZZ_MAX_ZENO_EVENTS;
    /* Only a finite span is shortened; NaN, infinite or reversed times are
    ** the validation's to refuse. */
    if (s->set.t_end - s->set.t0 > max_span && s->set.t0 + max_span > s->set.t0)
        s->set.t_end = s->set.t0 + max_span;
}

/* Validate and run s with the bounds, the row counter as its last sink
** (the other sinks see every row it lets through). The run's status. */
static inline int fuzz_bounded_run(hydae_sim *s, long max_steps, double max_span)
{
    fuzz_clamp_settings(s, max_steps, max_span);
    fuzz_row_budget budget = { 0 };
    if (hydae_sim_add_row_sink(s, fuzz_count_row, &budget))
        return HYDAE_ERR_NOMEM;
    if (hydae_sim_validate(s)) {
        if (fuzz_verbose)
            fprintf(stderr, "fuzz: refused: %s\n", hydae_sim_errmsg(s));
        return HYDAE_ERR_ARG;
    }
    struct itimerval cpu = { { 0, 0 }, { FUZZ_CPU_SECONDS, 0 } };
    fuzz_running_sim = s;
    setitimer(ITIMER_VIRTUAL, &cpu, NULL);
    int status = hydae_sim_run(s);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_VIRTUAL, &off, NULL);
    fuzz_running_sim = NULL;
    if (fuzz_verbose) {
        hydae_stats stats;
        hydae_sim_get_stats(s, &stats);
        fprintf(stderr, "fuzz: run: status %d, t = %g of [%g, %g], %ld steps, %ld events, "
                "%ld rows: %s\n", status, hydae_sim_time(s), s->set.t0, s->set.t_end, stats.n_steps,
                stats.n_events, budget.n_rows, status ? hydae_sim_errmsg(s) : "");
    }
    return status;
}

/* A stream that swallows what is written, for the writers' code paths. */
static inline FILE *fuzz_null_stream(void)
{
    static FILE *null_stream;
    if (!null_stream)
        null_stream = fopen("/dev/null", "w");
    return null_stream;
}

#endif
