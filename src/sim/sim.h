/*
** The simulator: its parts, each a struct with its own reserve / free in
** the file that owns it (settings: options.c, settings.h; output sinks
** and rows: output.c, output.h; guard set: events.c, guards.h; init
** workspace: init.c, init.h; Jacobian work: jacobian.c), the blocks of the
** active configuration (block.h), and the run's state, owned by the hybrid
** loop (sim.c). Shared by the files of sim/ only; io/ sees io/sinks.h.
*/
#ifndef HY_SIM_H
#define HY_SIM_H

#include "block.h"
#include "guards.h"
#include "init.h"
#include "output.h"
#include "settings.h"
#include "core/core.h"
#include "integrators/integrator.h"
#include "model/model.h"

#include <signal.h>
#include <stdatomic.h>

struct hydae_action {
    hydae_sim *sim;
    const hydae_transition *tr;
    double t;
    int status;
};

/* Chattering and Zeno detection (chatter.c). */
enum { HY_CHATTER_RECENT = 8 };
typedef struct hy_chatter {
    double t_last, gap_last;    /* last event instant, gap before it */
    double window_start;
    int n_in_window, n_shrinking, n_band_chain;
    int n_recent;
    const hydae_transition *recent[HY_CHATTER_RECENT];  /* first of each instant */
} hy_chatter;

typedef enum hy_chatter_kind {
    HY_CHATTER_NONE,
    HY_CHATTER_ACCUMULATE,      /* Zeno: the window or the accumulation point */
    HY_CHATTER_PINGPONG         /* guards firing each other within their band */
} hy_chatter_kind;

/* jacobian.c: the configuration's Jacobian pattern (NULL: dense) and the
** scratch a block's Jacobian is written to before it is placed. */
typedef struct hy_jac_work {
    struct hy_pattern *pattern;
    double *block;              /* the largest dense Jacobian block of a mode */
    size_t cap_block;
    double *values;             /* a mode's sparse Jacobian values */
    size_t cap_values;
} hy_jac_work;

/* Room for a dense block of max_block x max_block and for a mode's sparse
** Jacobian values (max_sparse_values): 0 or HYDAE_ERR_NOMEM. */
int hy_jac_work_reserve(hy_jac_work *jw, size_t max_block, size_t max_sparse_values);
void hy_jac_work_free(hy_jac_work *jw);

/* Shared unknowns (assembly.c): the blocks' components in their own
** layout ("local": var_offset) and the configuration's unknowns, the
** distinct variables; the blocks' equations one after another. */
typedef struct hy_assembly {
    int shared;                 /* 0: every map below is the identity (unused) */
    int n_local, n_unknowns;
    int *row_offset;            /* per chart: its block's first equation (n_charts + 1) */
    int *slot_unknown;          /* per slot: scratch, -1 between layouts */
    int *local_unknown;         /* local component -> unknown */
    int *unknown_local;         /* unknown -> its first local component */
    double *y_local, *yp_local; /* y, y' gathered in the local layout */
    int cap_local;
} hy_assembly;

int hy_assembly_reserve(hy_assembly *a, int n_charts, int n_slots);
void hy_assembly_free(hy_assembly *a);
/* After var_offset (n_local components): the unknowns, the rows, and the
** check that they are as many (else HYDAE_ERR_MODEL with the message). */
int hy_assembly_layout(struct hydae_sim *s, int n_local);
/* After the blocks entered (y, y', flags and tolerances written in the
** local layout): fold them onto the unknowns; s->n becomes their count. */
void hy_assembly_fold(struct hydae_sim *s);
/* y, y' of the configuration in the local layout (themselves when nothing
** is shared, else gathered copies valid until the next call). yp and
** yp_local may be NULL together. */
void hy_config_local(struct hydae_sim *s, const double *y, const double *yp,
                     const double **y_local, const double **yp_local);
/* The unknown of local component `local`, and the first local component
** of `unknown`. */
int hy_unknown_of(const struct hydae_sim *s, int local);
int hy_local_of(const struct hydae_sim *s, int unknown);
/* "equation 2 of mode 'm' (paired with variable 'x')" for equation eq of
** chart c's block (no pairing when unknowns are shared), and the same for
** a row of the configuration (returns its chart, or -1). */
void hy_describe_equation(const struct hydae_sim *s, int c, int eq, char *out, size_t size);
int hy_describe_row(const struct hydae_sim *s, int row, char *out, size_t size);
/* ": why" for a mode whose callback failed (hydae_mode_set_error_text), or "". */
const char *hy_mode_error_sep(const hydae_mode *mode);
const char *hy_mode_error_text(const hydae_mode *mode);
/* A configuration with shared unknowns whose pattern has no perfect
** matching of equations to unknowns: HYDAE_ERR_MODEL naming the equations
** and unknowns left over; else 0. */
int hy_assembly_check_structure(struct hydae_sim *s);
struct hy_pattern;
/* The configuration's pattern from its blocks' (their modes' patterns, or
** dense blocks) with shared columns merged. 0 or HYDAE_ERR_NOMEM. */
int hy_assembly_pattern(struct hydae_sim *s, struct hy_pattern **out);

/* The configuration cache (assembly.c): per active-mode vector and method
** met before, its Jacobian pattern (structurally checked already) and the
** pattern of its consistent initialisation, both keeping their symbolic
** work (linalg/linsol.h: the column groups of finite differences, KLU's
** analysis), so a circuit that toggles between the same configurations
** pays all that once. The integrator's and the initialisation's solvers
** hold references to the patterns they were made for: an entry evicted
** while they use it frees nothing they see. */
enum { HY_CONFIG_CACHE_SIZE = 32 };
typedef struct hy_config_entry {
    const hydae_mode **modes;   /* one per chart; NULL: the entry is free */
    const struct hy_integrator_ops *method;
    struct hy_pattern *pattern; /* a reference, or NULL: dense */
    struct hy_pattern *init_pattern; /* a reference, or NULL: none made yet */
    int64_t *init_unknowns;     /* the initialisation's unknowns it is for */
    size_t init_n;
    unsigned long last_used;
} hy_config_entry;
/* 1 if the active configuration is cached: s->jac.pattern set from it. */
int hy_config_cache_find(struct hydae_sim *s, const struct hy_integrator_ops *method);
/* Keep the active configuration's pattern (the least recently used entry
** gives way). 0 or HYDAE_ERR_NOMEM. */
int hy_config_cache_add(struct hydae_sim *s, const struct hy_integrator_ops *method);
void hy_config_cache_free(struct hydae_sim *s);
/* The pattern of consistent initialisation (hy_init_pattern) for the n
** unknowns coded in unknowns (init.c): the active configuration's entry's
** when made for the same unknowns, else made (and kept there). A new
** reference, or NULL out of memory. */
struct hy_pattern *hy_config_init_pattern(struct hydae_sim *s, const int64_t *unknowns, size_t n);
/* Symbolic work on a pattern before a call that may do some, and its
** addition to the run's statistics (n_colorings, n_symbolic_analyses,
** n_band_orderings)
** after it. */
typedef struct hy_symbolic_mark {
    const struct hy_pattern *pattern;
    long n_colorings, n_analyses;
    long n_band_orderings;
} hy_symbolic_mark;
hy_symbolic_mark hy_symbolic_mark_of(const struct hy_pattern *p);
void hy_symbolic_count(struct hydae_sim *s, hy_symbolic_mark mark);

/* The simulator: its parts, each owned by the file named, and the run's
** state, owned by sim.c (the hybrid loop). */
struct hydae_sim {
    hydae_model *model;
    hy_settings set;            /* settings (options.c) */
    hy_output out;              /* sinks, result rows, the grid (output.c) */
    hy_guard_set guards;        /* guards, and the snapshot for re-arming (events.c) */
    hy_init_work init;          /* consistent initialisation (init.c) */
    hy_jac_work jac;            /* the configuration's Jacobian (jacobian.c) */
    hy_assembly assembly;       /* shared unknowns (assembly.c) */
    hy_config_entry config_cache[HY_CONFIG_CACHE_SIZE]; /* (assembly.c) */
    int config_cache_capacity;  /* entries used, <= HY_CONFIG_CACHE_SIZE (tests
                                ** lower it; 0: nothing cached) */
    int config_active;          /* the active configuration's entry, or -1 */
    unsigned long config_clock;
    /* Set by hydae_sim_interrupt, from a signal handler or another thread
    ** (a lock-free atomic: safe in both, C11 7.14.1.1 and 5.1.2.4). */
    atomic_int interrupt_requested;
    char errmsg[1024];
    hydae_stats stats;

    /* ---- the run (sim.c) ---- */
    double t;                   /* time of the current state */
    int advancing;              /* a run in pieces (hydae_sim_advance) is going */
    int params_changed;         /* hydae_sim_set_param between two advances */
    long n_loop_steps;          /* steps of the run so far (max_steps) */
    long n_res_evals_integ;     /* the integrators' evaluations in stats */
    double *store;              /* one value per slot of the model */
    hydae_mode **active;        /* active mode per chart */
    /* The configuration's layout. */
    hy_block *blocks;           /* per chart: its active mode's continuous part */
    int *var_offset;            /* per chart: first index in y */
    int *guard_offset;          /* per chart: first index in g */
    /* The sim's own copies of its modes' Jacobian patterns (jacobian.c),
    ** per chart from mode_pattern_base[c] by mode index: the solvers keep
    ** their symbolic work on these, so nothing of the model is written and
    ** its sims may run on several threads at once. */
    struct hy_pattern **mode_patterns;
    int *mode_pattern_base;
    /* hydae_sim_set_param (params.c): per global, its value for this sim's
    ** runs where is_set (else the model's), NULL until the first call. */
    double *param_value;
    unsigned char *param_is_set;
    hydae_fired_fn fired_fn;    /* hydae_sim_set_fired_hook (discrete.c), or NULL */
    void *fired_user;
    int n;                      /* unknowns of the configuration */
    int n_guards;
    int cap_n;
    double *y, *yp;             /* current state at t */
    double *y_work, *yp_work;   /* interpolated states */
    double *res_work;           /* n */
    unsigned char *is_algebraic;
    double *rtol_vec, *atol_vec;  /* per component, from the variables; unset while */
    int tol_uniform;              /* 1: every component has uniform_rtol/atol (the usual */
    double uniform_rtol, uniform_atol; /* case: no n-vectors touched), 0: the vectors */
    unsigned char *err_exclude;   /* per component: out of the error test */
    unsigned char *var_index;     /* per component: its index (DSTIFF's scaling) */
    int has_var_index;            /* a block of the configuration uses var_index */
    double *out_work;           /* largest output count */
    int cap_out_work;
    /* The integrator. */
    void *integ;
    const hy_integrator_ops *integ_method;  /* the method of integ */
    int integ_n;
    int integ_started;          /* a step has been taken since init */
    hy_stats integ_base;        /* statistics of destroyed integrators */
    /* The discrete phase (discrete.c, chatter.c). */
    hy_chatter chatter;
    double t_time_instant;      /* last instant whose time events fired */
    unsigned char *event_active, *event_waiting;  /* named events */
    const hydae_transition **fired_log;           /* for cascade reports */
    /* Run-time seams (discrete.c, sim.c): per chart, the time an action
    ** scheduled (INFINITY: none), whether it is due in this discrete
    ** phase, whether its mode's after-step function asked for an event;
    ** a stop requested by an action, and why. */
    double *scheduled;
    unsigned char *schedule_due, *step_event;
    int stop_requested;
    char stop_reason[512];
    /* hydae_action_set_nominal (nominal.c): per slot, the nominal value
    ** set for this sim's run (0: the model's), NULL until the first call. */
    double *nominal_value;
    int n_fired_log, cap_fired_log;
    /* Last bad residual seen (for failure messages). */
    int bad_chart, bad_equation;
    double bad_t;
    int bad_is_nan;
};

/* sim.c */
/* F(t, y, y') of the configuration: every block's at its offset; a failure
** or a value that is not finite is recorded in bad_* for the messages. */
/* A block's residual or right-hand side of chart c at t came back with
** status and values[0..n): status, or 1 when a value is not finite; the
** failure is noted (bad_chart, bad_equation, bad_t) for the message. */
int hy_block_outcome(hydae_sim *s, int c, double t, int status, const double *values, int n);
int hy_config_residual(double t, const double *y, const double *yp,
                       double *res, void *ctx);
/* Values of the active configuration at (t, y, yp) into the store
** (variables and outputs). */
int hy_store_state(hydae_sim *s, double t, const double *y, const double *yp);
/* Name of component i of y in the configuration. */
const char *hy_component_name(const hydae_sim *s, int i, const hydae_mode **mode);
/* hy_sim_fail: io/sinks.h. */
/* Crossings located within this of the first belong to its instant. */
double hy_event_group_tol(double t);
/* The run stops on hydae_sim_interrupt: the message, HYDAE_INTERRUPTED. */
int hy_sim_interrupted(hydae_sim *s, double t);
/* options.c */
/* The absolute tolerance in force for variables of scale 1. */
double hy_base_atol(const hydae_sim *s);
/* Tolerances of component i from the variable it stands for (seed 002,
** Table 1 with integr_tol). */
void hy_set_component_tolerances(hydae_sim *s, const hy_var *var, int i);
/* nominal.c */
/* The nominal value of var in this sim's run: set by an action, else the
** model's. */
double hy_sim_nominal(const hydae_sim *s, const hy_var *var);
/* A new run starts from the model's nominal values. */
void hy_nominal_reset(hydae_sim *s);
/* integration.c */
/* The method for the active configuration: the one its modes prefer
** (hydae_mode_set_integrator), if they agree, else the run's. */
const hy_integrator_ops *hy_configuration_method(const hydae_sim *s);
/* (Re)start the integrator at s->t from (s->y, s->yp): 0 or a status with
** the message (HYDAE_ERR_ARG: a method or solver that cannot serve). */
int hy_restart_integrator(hydae_sim *s);
/* The message for a failed step (code < 0), and the status to return. */
int hy_integrator_failure(hydae_sim *s, int code);
/* The integrators' statistics of the run so far. */
void hy_integ_stats(const hydae_sim *s, hy_stats *out);
/* output.c */
/* The output grid of a run: 0 or HYDAE_ERR_ARG. */
int hy_output_start(hydae_sim *s);
/* Every sink's begin / finish, with the message; finish turns a successful
** run whose output failed into HYDAE_ERR_IO. */
int hy_output_begin(hydae_sim *s);
int hy_output_finish(hydae_sim *s, int status);
/* The store's values by result column. */
void hy_gather_row(const hydae_sim *s, double *row);
/* A row to the sinks: 0, HYDAE_ERR_IO or HYDAE_ERR_CALLBACK (message set). */
int hy_send_row(hydae_sim *s, hydae_row_kind kind, double t, const double *row);
/* The configuration's values at (t, y, yp) as a row. */
int hy_emit_state_row(hydae_sim *s, hydae_row_kind kind, double t, const double *y,
                      const double *yp);
double hy_grid_time(const hydae_sim *s, long k);
/* Grid rows with t_grid < t_limit (or <= t_limit when inclusive) from the
** last step's dense output. */
int hy_emit_grid_until(hydae_sim *s, double t_limit, int inclusive);
/* Grid rows that fall on the current time, from the current state. */
int hy_emit_grid_at_current(hydae_sim *s);
/* jacobian.c */
struct hy_matrix;
int hy_config_build_pattern(hydae_sim *s);
/* Copy the modes' patterns for the sim (0, or HYDAE_ERR_NOMEM), free them. */
int hy_mode_patterns_copy(hydae_sim *s);
/* params.c: the parameters and discrete variables at the start of a run
** into the store (the model's values, or the sim's own). */
void hy_params_start(hydae_sim *s);
void hy_mode_patterns_free(hydae_sim *s);
/* The sim's copy of mode's pattern, or NULL when it has none. */
const struct hy_pattern *hy_mode_pattern(const hydae_sim *s, const hydae_mode *mode);
int hy_config_has_jacobian(const hydae_sim *s);
int hy_config_jacobian(double t, double cj, const double *y, const double *yp,
                       struct hy_matrix *jac, void *ctx);
/* The pattern of consistent initialisation's Jacobian (columns: its
** unknowns, rows: its equations) from the configuration's; NULL on out of
** memory. */
struct hy_pattern *hy_init_pattern(hydae_sim *s);

/* A configuration is solved with dense n x n matrices (iteration matrices,
** Jacobians, consistent initialisation), so n is limited: 2 GiB per
** matrix, and every n * n index fits in an int. Sparse solvers (issue 12)
** will lift it. */
enum { HY_DENSE_MAX_N = 16384 };
/* 0 if the active configuration, solved with `method`, fits; else
** HYDAE_ERR_ARG with a message naming the mode, its size and the memory
** it would need (validate.c). */
int hy_check_dense_size(hydae_sim *s, const hy_integrator_ops *method);
/* events.c */
int hy_guards_eval(hydae_sim *s, double t, const double *y, const double *yp,
                   double *g);
/* Keep the configuration and the guards' signs before a discrete phase
** (the left limit at s->t) for re-arming after it. */
void hy_guards_snapshot(hydae_sim *s);
/* Reference signs of the guards after a (re)start at s->t; see events.c. */
int hy_guards_arm(hydae_sim *s);
/* After a step from s->t to t_new (integrator dense output valid): find
** the first relevant crossing. Returns 1 with *t_event and s->guards.g_crossed
** set, 0 if none, < 0 on error. */
int hy_guards_locate(hydae_sim *s, double t_new, double *t_event);
/* The scan moves to the end of the located interval (s->t): guards that
** crossed there take their crossing's sign, the others follow theirs. */
int hy_guards_restart_scan(hydae_sim *s);
void hy_guards_advance(hydae_sim *s);
/* At an event instant s->t: guards not yet across zero but moving there
** whose crossing, extrapolated linearly, lies within hy_time_tol(t) join
** the instant (marked in g_crossed). */
int hy_guards_join_instant(hydae_sim *s);
/* At t0: mark the guards of transitions that fire at start (a level test)
** and are strictly on their firing side, and those of level transitions
** past the arming band; every other mark is cleared. */
int hy_guards_mark_at_start(hydae_sim *s);
/* After an event's reinitialisation and hy_guards_arm: mark the guards of
** level transitions (hydae_transition_set_level) past zero on their
** firing side (from the values hy_guards_arm took), every other mark
** cleared; their number into *n_marked. */
int hy_guards_mark_levels(hydae_sim *s, int *n_marked);
/* Mark in g_crossed the relevant crossings between the reference signs and
** the values g (no location); the number marked. */
int hy_guards_mark_crossings(hydae_sim *s, const double *g);
int hy_interpolate(hydae_sim *s, double t, double *y, double *yp);
/* Next time event strictly after t (or t_end). */
double hy_next_time_event(const hydae_sim *s, double t);
int hy_time_event_due(const hydae_transition *tr, double t);
/* Refuse sample periods below the time resolution over [t0, t_end]. */
int hy_check_sample_periods(hydae_sim *s);
/* Is a time or sample event of an active mode due at t? */
int hy_time_event_pending(const hydae_sim *s, double t);

/* roots.c: zeros of guards along the dense output. */
/* Guards at t on the dense output (y_work, yp_work hold the state). */
int hy_guards_at(hydae_sim *s, double t, double *g);
/* The same, and dG/dt along the dense output by a directional difference;
** width: the sub-interval the slope is for. */
int hy_guards_at_with_slopes(hydae_sim *s, double t, double width, double *g, double *slope);
/* Bracket the crossing of guard k (minus level) in direction dir on [t_lo,
** t_hi] (g_lo not crossed, g_hi crossed, both minus level) to adjacent
** doubles; *t_root is the right end. */
int hy_root_bracket(hydae_sim *s, int k, int dir, double level, double t_lo, double g_lo,
                    double t_hi, double g_hi, double *t_root);
/* A dip of a guard below zero smaller than this is rounding (a touch). */
double hy_dip_floor(double g_a, double g_b);
/* Guard k with sign `sign` at both ends of [a, b] (values g_a, g_b),
** moving towards zero at a and away at b: 1 with a point where it is past
** zero by more than floor_value (*t_past, *g_past), 0 if its extremum stays
** short. */
int hy_guard_dip(hydae_sim *s, int k, int sign, double a, double g_a, double slope_a, double b,
                 double g_b, double slope_b, double floor_value, double *t_past, double *g_past);

/* chatter.c */
void hy_chatter_reset(hy_chatter *c);
/* After an event instant at s->t (tr: its first transition; from_band: fired
** by a guard inside its arming band). */
hy_chatter_kind hy_chatter_note(hydae_sim *s, int from_band, const hydae_transition *tr);
/* The message for HY_CHATTER_PINGPONG; HYDAE_ERR_ZENO. */
int hy_chatter_pingpong_failure(hydae_sim *s);

/* discrete.c */
/* Fire transitions at time t: round 0 takes guard crossings (s->g_crossed)
** and due time events; later rounds take raised events. *n_fired gets the
** count. 0 or a negative status. */
int hy_discrete_phase(hydae_sim *s, double t, int *n_fired);

/* "'a' (x -> y), 'b' (y -> x)": the distinct transitions of list, in order. */
void hy_describe_transitions(char *out, size_t size, const hydae_transition *const *list,
                             int n);

/* No time scheduled by actions, no stop requested: the start of a run. */
void hy_seams_reset(hydae_sim *s);
/* The time scheduled for chart c if it lies after t (else INFINITY). */
double hy_scheduled_after(const hydae_sim *s, int c, double t);
/* Is the time scheduled for chart c due at t? */
int hy_schedule_due(const hydae_sim *s, int c, double t);

/* The model's initial action at t0 (values by name, as transitions'). */
int hy_initial_action(hydae_sim *s, double t);
/* The entry actions of the initial modes at t0, after the initial action. */
int hy_initial_entry_actions(hydae_sim *s, double t);

/* init.c */
/* Solve F(t, y, y') = 0 for the algebraic components of y and all of y',
** differential components of y fixed. 0 or HYDAE_ERR_INIT. */
int hy_consistent_init(hydae_sim *s, double t, int at_start);

/* The tolerances of component i of the configuration. */
static inline double hy_component_rtol(const hydae_sim *s, int i)
{
    return s->tol_uniform ? s->uniform_rtol : s->rtol_vec[i];
}
static inline double hy_component_atol(const hydae_sim *s, int i)
{
    return s->tol_uniform ? s->uniform_atol : s->atol_vec[i];
}

#endif
