/*
** The simulator's settings: what the setters of include/hydae.h, the
** option table (hydae_sim_set_option, the command line, a model's
** experiment block, Param_Transient XML) and hydae_sim_validate work on.
** Owned by options.c; read by every file of sim/.
*/
#ifndef HY_SETTINGS_H
#define HY_SETTINGS_H

#include "integrators/integrator.h"

#include <stdio.h>

typedef struct hy_settings {
    const hy_integrator_ops *method;    /* the run's integrator */
    double t0, t_end, dt_out;
    double rtol, atol, h_min, h_max, h0;
    int max_order, cascade_limit;
    long max_steps;
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
    int linear_solver;          /* hy_ls_kind, setting linear_solver */
    int radau_order;            /* 5, 9, 13; 0: automatic (setting radau_order) */
} hy_settings;

/* The defaults of a new simulator. */
void hy_settings_default(hy_settings *set);

#endif
