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
    int writes_file;            /* a failure is an I/O error, not a user stop */
} hy_sink;

struct hydae_action {
    hydae_sim *sim;
    const hydae_transition *tr;
    double t;
    int status;
};

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
    double *jac_block;          /* largest block squared, for Jacobians */
    int cap_jac_block;
    double *init_matrix;        /* n * n, consistent initialisation */
    int *init_pivot;
    double **init_unknowns;     /* the n unknowns of consistent initialisation */
    int *init_component;        /* the component each belongs to */
    double *init_work;          /* 3 n */
    /* Guards of the configuration. */
    double *g_start, *g_end, *g_work;
    double *g_root;             /* located crossing time per guard */
    signed char *g_sign;        /* last non-zero sign; 0 = not armed */
    signed char *g_crossed;     /* crossing direction at the event */
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
double hy_time_tol(double t);
/* The run stops on hydae_sim_interrupt: the message, HYDAE_INTERRUPTED. */
int hy_sim_interrupted(hydae_sim *s, double t);
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
/* Mark in g_crossed the relevant crossings between the reference signs and
** the values g (no location); the number marked. */
int hy_guards_mark_crossings(hydae_sim *s, const double *g);
int hy_interpolate(hydae_sim *s, double t, double *y, double *yp);
/* Next time event strictly after t (or t_end). */
double hy_next_time_event(const hydae_sim *s, double t);
int hy_time_event_due(const hydae_transition *tr, double t);
/* Is a time or sample event of an active mode due at t? */
int hy_time_event_pending(const hydae_sim *s, double t);

/* discrete.c */
/* Fire transitions at time t: round 0 takes guard crossings (s->g_crossed)
** and due time events; later rounds take raised events. *n_fired gets the
** count. 0 or a negative status. */
int hy_discrete_phase(hydae_sim *s, double t, int *n_fired);

/* The model's initial action at t0 (values by name, as transitions'). */
int hy_initial_action(hydae_sim *s, double t);

/* init.c */
/* Solve F(t, y, y') = 0 for the algebraic components of y and all of y',
** differential components of y fixed. 0 or HYDAE_ERR_INIT. */
int hy_consistent_init(hydae_sim *s, double t, int at_start);

#endif
