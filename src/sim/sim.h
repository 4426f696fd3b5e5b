/*
** The simulator's state, shared by the files of sim/: the hybrid loop
** (sim.c), guards and event location (events.c), the discrete phase
** (discrete.c) and consistent initial values (init.c).
*/
#ifndef HY_SIM_H
#define HY_SIM_H

#include "core/core.h"
#include "integrators/integrator.h"
#include "model/model.h"

#include <signal.h>

typedef struct hy_sink {
    int (*begin)(void *user, const hydae_model *m);
    hydae_row_fn row;
    /* 0, or non-zero when writing what the sink holds failed. */
    int (*finish)(void *user, int status, double t, const char *message);
    void (*release)(void *user);
    void *user;
    int writes_file;            /* a failure is an I/O error, not a user stop
                                ** (HYDAE_ERR_NOMEM from begin or row: out of
                                ** memory) */
} hy_sink;

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

struct hydae_sim {
    hydae_model *model;
    const hy_integrator_ops *method;        /* the run's choice */
    const hy_integrator_ops *integ_method;  /* the method of integ */
    /* Settings. */
    double t0, t_end, dt_out;
    double rtol, atol, h_min, h_max, h0;
    int max_order, cascade_limit;
    long max_steps;
    double dt_grid;             /* output interval in effect for a run */
    /* Param_Transient settings (seed 002), see options.c. */
    double integr_tol;          /* > 0: tolerances from it, scaled by class */
    double rel_abs_tol_ratio, vel_tol_factor, dae_alg_tol_factor;
    double h0_max, constr_tol;
    int corrector_maxit, corrector_minit, jacob_eval, jacob_init;
    long eval_expiry;
    int vel_ctrl, interpolation, dae_index;
    double dt_min;              /* > 0: restart past jumps (seed 000, 4.3) */
    int zeno_events;            /* events in the window that mean Zeno */
    double zeno_window;         /* its width; 0: 1e-9 max(1, |t|) */
    int zeno_rest;              /* 1: enter the chart's resting mode */
    int guard_samples;          /* interior guard samples per step */
    FILE *newton_debug;         /* --debug-newton output, or NULL */
    int output_steps;           /* rows at every step instead of the grid */
    /* Set by hydae_sim_interrupt (a signal handler may call it). */
    volatile sig_atomic_t interrupt_requested;
    /* Sinks. */
    int n_sinks, cap_sinks;
    hy_sink *sinks;
    char errmsg[1024];
    hydae_stats stats;

    /* ---- run state ---- */
    double t;                   /* time of the current state */
    double *store;              /* one value per slot of the model */
    hydae_mode **active;        /* active mode per chart */
    int *var_offset;            /* per chart: first index in y */
    int *guard_offset;          /* per chart: first index in g */
    int n;                      /* unknowns of the configuration */
    int n_guards;
    int cap_n, cap_guards;
    double *y, *yp;             /* current state at t */
    double *y_work, *yp_work;   /* interpolated states */
    unsigned char *is_algebraic;
    double *rtol_vec, *atol_vec;  /* per component, from the variables */
    unsigned char *err_exclude;   /* per component: out of the error test */
    unsigned char *var_index;     /* per component: its index (DSTIFF's scaling) */
    int has_var_index;            /* a block of the configuration uses var_index */
    struct hy_mech_block **mech_blocks; /* per chart: a mechanical mode's block, or NULL */
    int *init_rows;               /* rows of consistent initialisation (init.c) */
    int n_init;                   /* its unknowns: the components outside mech blocks */
    double *res_work;           /* n */
    double *jac_block;          /* the largest dense Jacobian block of a mode */
    size_t cap_jac_block;
    /* jacobian.c: the configuration's Jacobian pattern (NULL: dense), a
    ** mode's sparse Jacobian values (scratch), the linear solver asked. */
    struct hy_pattern *config_pattern;
    double *jac_values;
    size_t cap_jac_values;
    int linear_solver;          /* hy_ls_kind, setting linear_solver */
    /* init.c: the Newton matrix of consistent initialisation, kept while
    ** the unknowns and the configuration's pattern stay the same. */
    struct hy_init_matrix *init_matrix;
    double **init_unknowns;     /* the n unknowns of consistent initialisation */
    int *init_component;        /* the component each belongs to */
    double *init_work;          /* 3 n */
    /* Guards of the configuration. */
    double *g_start, *g_end, *g_work;
    double *g_root;             /* located crossing time per guard */
    signed char *g_sign;        /* last non-zero sign; 0 = not armed */
    signed char *g_crossed;     /* crossing direction at the event */
    double *g_slope_start, *g_slope_end;  /* dG/dt along the dense output */
    double *g_probe;            /* guards at a probe point (roots.c) */
    int slopes_valid;           /* g_slope_start belongs to g_start */
    int event_from_band;        /* the located crossing was an unarmed guard's */
    hy_chatter chatter;
    double t_time_instant;      /* last instant whose time events fired */
    double *out_work;           /* largest output count */
    int cap_out_work;
    /* Result rows. */
    double *row;
    double *row_left;
    long k_out, n_out;          /* next grid index, index of t_end */
    /* The integrator. */
    void *integ;
    int integ_n;
    int integ_started;          /* a step has been taken since init */
    hy_stats integ_base;        /* statistics of destroyed integrators */
    /* The configuration before the current discrete phase, for re-arming
    ** the guards after it (see events.c). */
    int guards_armed;           /* g_sign is meaningful */
    int have_prev;              /* the prev_* arrays describe the last layout */
    hydae_mode **prev_active;
    int *prev_guard_offset;
    int *prev_var_offset;
    double *prev_y;             /* the state before the discrete phase */
    signed char *prev_sign, *prev_crossed;
    unsigned char *chart_fired; /* per chart: a transition fired this instant */
    /* Named events. */
    unsigned char *event_active, *event_waiting;
    /* Last bad residual seen (for failure messages). */
    int bad_chart, bad_equation;
    double bad_t;
    int bad_is_nan;
    /* Discrete-phase log for cascade reports. */
    const hydae_transition **fired_log;
    int n_fired_log, cap_fired_log;
};

/* sim.c */
/* The absolute tolerance in force for variables of scale 1. */
double hy_base_atol(const hydae_sim *s);
void hy_sim_fail(hydae_sim *s, const char *fmt, ...) HY_PRINTF(2, 3);
/* Crossings located within this of the first belong to its instant. */
double hy_event_group_tol(double t);
/* The run stops on hydae_sim_interrupt: the message, HYDAE_INTERRUPTED. */
int hy_sim_interrupted(hydae_sim *s, double t);
/* jacobian.c */
struct hy_matrix;
int hy_config_build_pattern(hydae_sim *s);
int hy_config_has_jacobian(const hydae_sim *s);
int hy_config_jacobian(double t, double cj, const double *y, const double *yp,
                       struct hy_matrix *jac, void *ctx);
/* The pattern of consistent initialisation's Jacobian (columns: its
** unknowns, rows: its equations) from the configuration's; NULL on out of
** memory. */
struct hy_pattern *hy_init_pattern(hydae_sim *s);
/* init.c */
void hy_init_free(hydae_sim *s);

int hy_config_residual(double t, const double *y, const double *yp,
                       double *res, void *ctx);
/* Values of the active configuration at (t, y, yp) into the store
** (variables and outputs). */
int hy_store_state(hydae_sim *s, double t, const double *y, const double *yp);
/* Name of component i of y in the configuration. */
const char *hy_component_name(const hydae_sim *s, int i, const hydae_mode **mode);

/* Tolerances of component i from the variable it stands for (seed 002,
** Table 1 with integr_tol). */
void hy_set_component_tolerances(hydae_sim *s, const hy_var *var, int i);

/* mechanics.c: mechanical modes (hydae_mode_set_mechanics). A chart whose
** active mode is mechanical has a block in s->mech_blocks[c]; its part of
** y is the formulation's (I3, SI1 or ODE), not the mode's variables. */
typedef struct hy_mech_block hy_mech_block;
/* Components of y the mode takes under the run's settings and method. */
int hy_mech_size(const hydae_sim *s, const hydae_mode *mode, const hy_integrator_ops *method);

/* A configuration is solved with dense n x n matrices (iteration matrices,
** Jacobians, consistent initialisation), so n is limited: 2 GiB per
** matrix, and every n * n index fits in an int. Sparse solvers (issue 12)
** will lift it. */
enum { HY_DENSE_MAX_N = 16384 };
/* 0 if the active configuration, solved with `method`, fits; else
** HYDAE_ERR_ARG with a message naming the mode, its size and the memory
** it would need (validate.c). */
int hy_check_dense_size(hydae_sim *s, const hy_integrator_ops *method);
/* The block of chart c from the store (positions and velocities projected
** onto the constraints): y, yp, tolerances and flags at s->var_offset[c]. */
int hy_mech_enter(hydae_sim *s, int c, const hy_integrator_ops *method);
void hy_mech_leave(hydae_sim *s, int c);
void hy_mech_free_all(hydae_sim *s);
/* 1 if chart c's block is in the ODE form (an explicit y' = f). */
int hy_mech_is_explicit(const hydae_sim *s, int c);
int hy_mech_residual(hydae_sim *s, int c, double t, const double *y, const double *yp,
                     double *res);
int hy_mech_rhs(hydae_sim *s, int c, double t, const double *y, double *ydot);
/* The mode's own (q, u, lambda) and (u, u', 0) at the block's (y, yp). */
int hy_mech_expand(hydae_sim *s, int c, double t, const double *y, const double *yp,
                   const double **y_decl, const double **yp_decl);
const char *hy_mech_component_name(const hydae_sim *s, int c, int i);
/* At an accepted point s->t: the constraint violation into the statistics
** and the ODE form's re-partition. 1 if the integrator must restart (y,
** yp of the block changed meaning), 0, or < 0. */
int hy_mech_after_step(hydae_sim *s);
double hy_mech_constr_tol(const hydae_sim *s);

/* events.c */
int hy_guards_eval(hydae_sim *s, double t, const double *y, const double *yp,
                   double *g);
/* Reference signs of the guards after a (re)start at s->t; see events.c. */
int hy_guards_arm(hydae_sim *s);
/* After a step from s->t to t_new (integrator dense output valid): find
** the first relevant crossing. Returns 1 with *t_event and s->g_crossed
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
** and are strictly on their firing side; every other mark is cleared. */
int hy_guards_mark_at_start(hydae_sim *s);
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

/* The model's initial action at t0 (values by name, as transitions'). */
int hy_initial_action(hydae_sim *s, double t);

/* init.c */
/* Solve F(t, y, y') = 0 for the algebraic components of y and all of y',
** differential components of y fixed. 0 or HYDAE_ERR_INIT. */
int hy_consistent_init(hydae_sim *s, double t, int at_start);

#endif
