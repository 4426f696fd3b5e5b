/*
** hydae: simulation of hybrid dynamic systems whose equations change at
** events. This is the only header a user includes.
**
** A model is a set of statecharts running in parallel. Each chart has
** modes; each mode is a DAE F(t, y, y', p) = 0 of its own size, with its
** own variables, guards (event variables) and output equations. The
** continuous system of a configuration (one active mode per chart) is
** assembled from the active modes' systems: a name that is a variable of
** modes of several charts is one unknown where they are active together
** (shared unknowns, docs/engine.md). Transitions fire on guard
** crossings, time events, sample clocks or named events; their actions
** read the old values by name and write the new mode's initial values.
**
** Parameters and discrete variables belong to the model and are visible in
** every mode's functions through the array p (index returned when they are
** added); actions may change them.
**
** Conventions: functions returning int give 0 on success and a negative
** hydae_status on error; the message is then on the model or the sim
** (hydae_model_errmsg, hydae_sim_errmsg). Every *_free accepts NULL.
** Callbacks return 0 on success, > 0 for a recoverable failure (the
** integrator retries with a smaller step) and < 0 to stop the run.
*/
#ifndef HYDAE_H
#define HYDAE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HYDAE_NODISCARD __attribute__((warn_unused_result))
#else
#define HYDAE_NODISCARD
#endif

/* The shared library is built with -fvisibility=hidden: every function
** declared in this header, and nothing else, is exported from it
** (docs/install.md). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Status codes: 0 success, positive information, negative errors.
** X(name, value, message) */
#define HYDAE_STATUS_LIST(X)                                                 \
    X(HYDAE_OK, 0, "success")                                                \
    X(HYDAE_ERR_NOMEM, -1, "out of memory")                                  \
    X(HYDAE_ERR_ARG, -2, "invalid argument")                                 \
    X(HYDAE_ERR_MODEL, -3, "invalid model")                                  \
    X(HYDAE_ERR_RESIDUAL, -4, "residual evaluation failed")                  \
    X(HYDAE_ERR_CONV, -5, "corrector failed to converge")                    \
    X(HYDAE_ERR_ERRTEST, -6, "repeated local error test failures")           \
    X(HYDAE_ERR_HMIN, -7, "step size below minimum")                         \
    X(HYDAE_ERR_SINGULAR, -8, "singular iteration matrix")                   \
    X(HYDAE_ERR_INIT, -9, "no consistent initial values")                    \
    X(HYDAE_ERR_CASCADE, -10, "event cascade limit reached")                 \
    X(HYDAE_ERR_ACTION, -11, "transition action failed")                     \
    X(HYDAE_ERR_IO, -12, "input/output error")                               \
    X(HYDAE_ERR_GUARD, -13, "guard evaluation failed")                       \
    X(HYDAE_ERR_CALLBACK, -14, "user callback stopped the run")                \
    X(HYDAE_ERR_MAXSTEPS, -15, "maximum number of steps reached")               \
    X(HYDAE_ERR_ZENO, -16, "events accumulate (chattering or Zeno behaviour)") \
    X(HYDAE_INTERRUPTED, -17, "the run was interrupted (hydae_sim_interrupt)") \
    X(HYDAE_ERR_JACOBIAN, -18, "Jacobian evaluation failed")

typedef enum hydae_status {
#define HYDAE_STATUS_ENUM_(name, value, msg) name = value,
    HYDAE_STATUS_LIST(HYDAE_STATUS_ENUM_)
#undef HYDAE_STATUS_ENUM_
} hydae_status;

/* A static message for a status code; never NULL. */
const char *hydae_status_string(int status);
/* The library version, e.g. "0.1.0". */
const char *hydae_version(void);

/* The allocator every allocation of the library goes through, like
** lua_Alloc: alloc(ud, NULL, n) allocates n > 0 bytes (aligned as malloc's),
** alloc(ud, ptr, n) resizes (n > 0; like realloc, ptr stays valid when it
** fails) or frees (n == 0, returning NULL). NULL on failure (the call then
** fails with HYDAE_ERR_NOMEM, "out of memory" in its message, and leaks
** nothing). Process-wide: set it before creating any model or sim, and do
** not change it while one lives; it must be thread-safe if runs share
** threads. fn == NULL restores the C library's malloc/realloc/free. KLU
** (through SuiteSparse's process-wide allocation functions, set at the
** first sparse solver) and expat allocate through it too; LAPACK does not
** allocate. docs/engine.md, "Memory". */
typedef void *(*hydae_alloc_fn)(void *ud, void *ptr, size_t new_size);
void hydae_set_allocator(hydae_alloc_fn fn, void *ud);
void hydae_get_allocator(hydae_alloc_fn *fn, void **ud);

/* ------------------------------------------------------------------ */
/* Model construction                                                  */

typedef struct hydae_model hydae_model;
typedef struct hydae_chart hydae_chart;
typedef struct hydae_mode hydae_mode;
typedef struct hydae_transition hydae_transition;
typedef struct hydae_action hydae_action;

typedef enum hydae_var_kind {
    HYDAE_DIFFERENTIAL, /* y'_i appears in the mode's equations */
    HYDAE_ALGEBRAIC,    /* y'_i does not appear */
    HYDAE_VELOCITY,     /* differential, of the velocity class: its tolerance
                        ** scales with vel_tol_factor, dae_vel_ctrl can take
                        ** it out of the error test (seed 002, Table 1) */
    HYDAE_MULTIPLIER    /* algebraic, a Lagrange multiplier: its tolerance
                        ** scales with dae_alg_tol_factor */
} hydae_var_kind;

typedef enum hydae_direction {
    HYDAE_RISING = 1,   /* guard changes sign from < 0 to > 0 */
    HYDAE_FALLING = -1, /* guard changes sign from > 0 to < 0 */
    HYDAE_BOTH = 0
} hydae_direction;

/* Residual of a mode: res[i] = F_i(t, y, y', p), i < n_equations. */
typedef int (*hydae_residual_fn)(double t, const double *y, const double *yp,
                                 const double *p, double *res, void *user);
/* Explicit ODE of a mode: ydot = f(t, y, p); every variable differential. */
typedef int (*hydae_rhs_fn)(double t, const double *y, const double *p,
                            double *ydot, void *user);
/* Jacobian J = dF/dy + cj dF/dy', column-major n x n (J[i + j*n]). For an
** explicit ODE mode it is df/dy, column-major. */
typedef int (*hydae_jacobian_fn)(double t, double cj, const double *y,
                                 const double *yp, const double *p,
                                 double *jac, void *user);
/* Guards (event variables) g[k], k < n_guards; also output equations
** out[k] for the mode's output variables. */
typedef int (*hydae_eval_fn)(double t, const double *y, const double *yp,
                             const double *p, double *out, void *user);
/* Transition action and condition: read and write values by name. */
typedef int (*hydae_action_fn)(hydae_action *a, void *user);
typedef int (*hydae_condition_fn)(const hydae_action *a, void *user);

/* NULL only when out of memory. */
hydae_model *hydae_model_create(const char *name);
void hydae_model_free(hydae_model *m);
/* The last error message on the model ("" if none). */
const char *hydae_model_errmsg(const hydae_model *m);

/* Parameters and discrete variables: their index into p, or < 0. A
** discrete variable is written to the results; a parameter is not. */
HYDAE_NODISCARD int hydae_model_add_param(hydae_model *m, const char *name,
                                          double value);
HYDAE_NODISCARD int hydae_model_add_discrete(hydae_model *m,
                                             const char *name, double start);
/* Set a parameter or discrete variable's value by name (e.g. --set). An
** unknown name fails with a message listing the names that exist (the
** nearest ones when there are many). */
HYDAE_NODISCARD int hydae_model_set_param(hydae_model *m, const char *name,
                                          double value);
/* Set the start value of a continuous variable by name (--set, when NAME is
** no parameter): NAME sets it in every mode that declares it, which must
** all declare the same start value; MODE.NAME in mode MODE only. For an
** algebraic variable it is the guess of the consistent initial values
** (unless held). Refused, with the message on the model, for an unknown
** name (listing the names), an ambiguous one (listing MODE.NAME and the
** start values), and a start value the model computes from parameters. */
HYDAE_NODISCARD int hydae_model_set_start(hydae_model *m, const char *name, double value);

/* An action run once at t0 of every run, after the parameters are final
** (hydae_model_set_param) and before the consistent initial values: it
** reads values by name and sets start values of the initial modes'
** variables, parameters and discrete variables (start values that depend
** on parameters, the initial truth of conditions ...). */
HYDAE_NODISCARD int hydae_model_set_initial_action(hydae_model *m, hydae_action_fn action,
                                                   void *user);
/* The model takes ownership of data and calls free_fn(data) when it is
** freed (compiled code behind its callbacks, say). Each call adds one:
** they are freed in the order attached. On failure (out of memory) the
** caller keeps data. */
HYDAE_NODISCARD int hydae_model_attach(hydae_model *m, void *data, void (*free_fn)(void *));

/* A statechart; its first mode is its initial mode unless set. */
hydae_chart *hydae_model_add_chart(hydae_model *m, const char *name);
hydae_mode *hydae_chart_add_mode(hydae_chart *c, const char *name);
HYDAE_NODISCARD int hydae_chart_set_initial(hydae_chart *c, hydae_mode *mode);

/* The mode chart c enters when its events accumulate (chattering, Zeno
** behaviour: a bouncing ball coming to rest) and the setting zeno_policy
** is "rest"; values move to it by name, as on a transition. */
HYDAE_NODISCARD int hydae_chart_set_resting_mode(hydae_chart *c, hydae_mode *mode);

/* The mode called name in any chart (the first if several charts have
** one), or NULL. */
hydae_mode *hydae_model_mode(hydae_model *m, const char *name);

/* Variables of a mode, in the order of y; returns the index or < 0. */
HYDAE_NODISCARD int hydae_mode_add_var(hydae_mode *mode, const char *name,
                                       hydae_var_kind kind, double start);
/* The integrator this mode prefers ("VSTIFF" for a stiff ODE mode, "RK45"
** for a non-stiff one ...): used while the active modes agree on it,
** otherwise the run's (hydae_sim_set_integrator). */
HYDAE_NODISCARD int hydae_mode_set_integrator(hydae_mode *mode, const char *name);
/* Tolerances of one variable (index from hydae_mode_add_var) in the local
** error test: rtol |y| + atol. A value of 0 keeps the run's setting. */
HYDAE_NODISCARD int hydae_mode_set_tolerances(hydae_mode *mode, int var, double rtol,
                                              double atol);
/* Initialisation at t0 (Modelica's `fixed`). By default the start value of
** a differential variable is held and its derivative solved, and an
** algebraic variable's start value is only a guess. fixed = 1 holds the
** start value, 0 frees it; free as many as you hold. */
HYDAE_NODISCARD int hydae_mode_set_start_fixed(hydae_mode *mode, int var, int fixed);
/* Hold y'(t0) = value for a differential variable (0: a steady start); free
** its start value (hydae_mode_set_start_fixed(mode, var, 0)) to solve it. */
HYDAE_NODISCARD int hydae_mode_set_start_derivative(hydae_mode *mode, int var, double value);
/* Output variables (values shown for names that are not unknowns here),
** in the order of out[] of the output function. Index or < 0. */
HYDAE_NODISCARD int hydae_mode_add_output(hydae_mode *mode, const char *name);
/* Exactly one of residual or rhs. n_equations must equal the number of
** variables (a mismatch is reported when the model is checked), unless the
** mode shares variables with modes of other charts: then each
** configuration must have as many equations as unknowns (checked when it
** is entered). */
HYDAE_NODISCARD int hydae_mode_set_residual(hydae_mode *mode, int n_equations,
                                            hydae_residual_fn res, void *user);
HYDAE_NODISCARD int hydae_mode_set_rhs(hydae_mode *mode, hydae_rhs_fn rhs,
                                       void *user);
HYDAE_NODISCARD int hydae_mode_set_jacobian(hydae_mode *mode,
                                            hydae_jacobian_fn jac);
/* The sparsity of a mode's Jacobian (dF/dy + cj dF/dy', or df/dy of an
** explicit ODE mode) in compressed sparse columns: the rows (0-based) of
** column j are row[col_start[j] .. col_start[j+1]), j < the mode's number
** of variables (add them first); duplicates are merged and the diagonal
** is added; the arrays are copied. With a pattern, a finite-difference
** Jacobian costs one evaluation per group of columns that share no row
** (Curtis, Powell & Reid), and a large system is solved with a band or
** sparse (KLU) solver (setting linear_solver, docs/solver.md) instead of
** an n x n matrix. Entries outside the pattern are taken as zero. */
HYDAE_NODISCARD int hydae_mode_set_jacobian_pattern(hydae_mode *mode,
                                                    const int64_t *col_start,
                                                    const int64_t *row);
/* An analytic Jacobian on that pattern: values[k] for the entry row[k] of
** hydae_mode_set_jacobian_pattern, in the same order (the sign and cj as
** for hydae_jacobian_fn). */
typedef int (*hydae_sparse_jacobian_fn)(double t, double cj, const double *y,
                                        const double *yp, const double *p,
                                        double *values, void *user);
HYDAE_NODISCARD int hydae_mode_set_sparse_jacobian(hydae_mode *mode,
                                                   hydae_sparse_jacobian_fn jac);
HYDAE_NODISCARD int hydae_mode_set_guards(hydae_mode *mode, int n_guards,
                                          hydae_eval_fn guards);
HYDAE_NODISCARD int hydae_mode_set_outputs(hydae_mode *mode,
                                           hydae_eval_fn outputs);

/* A constrained mechanical system as a mode (seed 002, docs/mechanics.md):
**
**     M(q) u' = F(q, u, t) - C(q, t) lambda,   q' = u,   Phi(q, t) = 0
**
** with C = Phi_q^T (Lagrange's equations of the first kind) unless
** multiplier_matrix gives another C (n_q x n_c, with Phi_q M^-1 C
** invertible: a model that writes the dynamics' rows in another order, or
** scales its multipliers).
**
** The mode's variables must be, in this order: n_q positions (any kind but
** algebraic), n_q velocities (HYDAE_VELOCITY), n_c multipliers
** (HYDAE_MULTIPLIER). The simulator solves it in the formulation the
** settings choose: with an integrator for explicit ODEs (VSTIFF, MSTIFF,
** ABAM, RK45, RK4) the ODE form by coordinate partitioning; with DSTIFF
** the index-3 form I3 (dae_index = 3) or the stabilised index-1 form SI1
** (dae_index = 1). dae_constr_tol (default 1e-10 here) is the tolerance of
** the projection and of the ODE form's dependent coordinates. On entering the mode the positions are projected
** onto Phi = 0 and the velocities M-orthogonally onto Phi_q u + Phi_t = 0
** (the velocity after a perfectly plastic impact); u' and lambda follow.
** Matrices are column-major: mass[i + j n_q], phi_q[i + j n_c] =
** dPhi_i/dq_j. accel_rhs gives gamma = -((Phi_q u)_q u + 2 Phi_qt u +
** Phi_tt), the right-hand side of Phi_q u' = gamma; constraint_t may be
** NULL when Phi does not depend on t. The struct is copied; user is passed
** to every callback. A mechanical mode has no residual or right-hand side
** of its own; its guards and outputs see y = (q, u, lambda) and y' = (u,
** u', 0) in the order above. */
typedef struct hydae_mechanics {
    int n_q;                    /* coordinates */
    int n_c;                    /* constraints, 0 <= n_c < n_q */
    int (*mass)(double t, const double *q, const double *p, double *mass, void *user);
    int (*force)(double t, const double *q, const double *u, const double *p, double *force,
                 void *user);
    int (*constraint)(double t, const double *q, const double *p, double *phi, void *user);
    int (*constraint_jac)(double t, const double *q, const double *p, double *phi_q,
                          void *user);
    int (*constraint_t)(double t, const double *q, const double *p, double *phi_t, void *user);
    int (*accel_rhs)(double t, const double *q, const double *u, const double *p,
                     double *gamma, void *user);
    int (*multiplier_matrix)(double t, const double *q, const double *p, double *c,
                             void *user);
} hydae_mechanics;
HYDAE_NODISCARD int hydae_mode_set_mechanics(hydae_mode *mode, const hydae_mechanics *mech,
                                             void *user);

/* A transition of chart c from one of its modes to another (or itself).
** Give it exactly one trigger with one of the hydae_transition_on_*. */
hydae_transition *hydae_chart_add_transition(hydae_chart *c, const char *name,
                                             hydae_mode *from, hydae_mode *to);
/* Fires when guard number `guard` of the from-mode crosses zero. */
HYDAE_NODISCARD int hydae_transition_on_guard(hydae_transition *tr, int guard,
                                              hydae_direction dir);
/* Fires once at time t_event if the from-mode is active then. */
HYDAE_NODISCARD int hydae_transition_on_time(hydae_transition *tr,
                                             double t_event);
/* Fires at t_start + k * period, k = 0, 1, ..., while the from-mode is
** active. */
HYDAE_NODISCARD int hydae_transition_on_sample(hydae_transition *tr,
                                               double t_start, double period);
/* Fires when an action raises the named event. */
HYDAE_NODISCARD int hydae_transition_on_event(hydae_transition *tr,
                                              const char *event);
/* Firing order at one instant (docs/engine.md): transitions with a priority
** (1 fires first, then 2, ...) before those without one; equal priorities
** and those without one in declaration order. */
HYDAE_NODISCARD int hydae_transition_set_priority(hydae_transition *tr,
                                                  int priority);
/* A guard trigger that also fires at t0 when its guard is already strictly
** on the firing side at the start (a level test, Modelica's initial()
** behaviour; by default triggers are edges and such a guard never fires). */
HYDAE_NODISCARD int hydae_transition_set_fires_at_start(hydae_transition *tr,
                                                        int on);
/* A guard trigger that is also a level test after every (re)initialisation:
** when the consistent values at t0, or those after an event, leave its
** guard past zero on its firing side (by more than the arming band, 10
** atol), it fires at that instant, and the discrete phase repeats until
** no such guard is left (Modelica's event iteration; at most
** cascade_limit rounds). Its condition, if any, is asked first: for a
** transition that keeps a discrete variable consistent with a relation of
** the continuous values, a condition true only while the variable is
** wrong (the model language's hidden relations, docs/language.md). */
HYDAE_NODISCARD int hydae_transition_set_level(hydae_transition *tr, int on);
HYDAE_NODISCARD int hydae_transition_set_condition(hydae_transition *tr,
                                                   hydae_condition_fn cond,
                                                   void *user);
HYDAE_NODISCARD int hydae_transition_set_action(hydae_transition *tr,
                                                hydae_action_fn action,
                                                void *user);

/* Actions run when the mode is entered: at t0 when it is an initial mode
** (after the model's initial action; they may set the initial modes'
** variables, parameters and discrete variables), and after the action of
** a transition from another mode into it (they may set what that action
** may, and raise events). Exit actions run when a transition leaves it
** for another mode, before the transition's action. Self-transitions run
** neither. Each call adds one; they run in the order added. */
HYDAE_NODISCARD int hydae_mode_add_entry_action(hydae_mode *mode, hydae_action_fn fn,
                                                void *user);
HYDAE_NODISCARD int hydae_mode_add_exit_action(hydae_mode *mode, hydae_action_fn fn,
                                               void *user);
/* Why the mode's last callback failed, in words (the failure of an FMI
** call, say; "" for nothing to add), asked with the mode's user pointer
** when its residual, right-hand side, guards or after-step function
** returns an error: the run's message ends with ": " and it. */
HYDAE_NODISCARD int hydae_mode_set_error_text(hydae_mode *mode,
                                              const char *(*why)(void *user));

/* Check counts, triggers and names; 0 or HYDAE_ERR_MODEL with a message
** naming the mode or transition. hydae_sim_create checks too. */
HYDAE_NODISCARD int hydae_model_check(hydae_model *m);

/* ------------------------------------------------------------------ */
/* Inside actions and conditions                                       */

/* Current time of the discrete phase. */
double hydae_action_time(const hydae_action *a);
/* 1 in the initial action and the initial modes' entry actions at t0, 0
** in a transition's condition, action, and exit and entry actions. */
int hydae_action_is_initial(const hydae_action *a);
/* Value of a variable, output, parameter or discrete variable by name, as
** it stands now in the discrete phase (left limit, updated by the actions
** fired before). NaN if the name is unknown or has no value now. */
double hydae_get(const hydae_action *a, const char *name);
/* Set the value a variable of the target mode starts with, or a parameter
** or discrete variable. HYDAE_ERR_ACTION if the name is none of these (the
** run then stops with a message naming the transition and the name). */
int hydae_set(hydae_action *a, const char *name, double value);
/* Raise a named event: it is handled in the next update of this same
** discrete phase (time does not advance). */
int hydae_raise(hydae_action *a, const char *event);

/* ------------------------------------------------------------------ */
/* Simulation                                                          */

typedef struct hydae_sim hydae_sim;

typedef enum hydae_row_kind {
    HYDAE_ROW_GRID,        /* a point of the uniform output grid */
    HYDAE_ROW_EVENT_LEFT,  /* left limit at an event time */
    HYDAE_ROW_EVENT_RIGHT, /* right limit at an event time */
    HYDAE_ROW_STEP         /* the end of an accepted step (output at steps) */
} hydae_row_kind;

/* Called for every result row. values[c] for column c (see
** hydae_model_n_columns), NaN where a variable has no value in the active
** configuration. Non-zero return stops the run (HYDAE_ERR_CALLBACK). */
typedef int (*hydae_row_fn)(void *user, hydae_row_kind kind, double t,
                            const double *values);

typedef struct hydae_stats {
    long n_steps;          /* accepted integration steps */
    long n_rejected;       /* rejected: error test and convergence failures */
    long n_res_evals;      /* residual evaluations (FD Jacobians included) */
    long n_jac_evals;      /* Jacobian evaluations */
    long n_lu;             /* LU factorisations */
    long n_events;         /* event instants with at least one transition */
    long n_triggers;       /* events of those instants: guard crossings, time
                              events, sample ticks and raised events */
    long n_priority_conflicts; /* a transition not fired because one of
                              higher priority left its mode at that instant */
    long n_transitions;    /* transitions fired */
    long n_mode_switches;  /* changes of the active configuration */
    long n_restarts;       /* integrator restarts */
    long n_homotopy_steps; /* continuation steps of consistent initialisation */
    long n_jump_restarts;  /* restarts past a jump (setting dt_min) */
    long n_zeno_rests;     /* resting modes entered on accumulating events */
    long n_configurations; /* configurations entered (at t0 and after events) */
    long n_config_cache_hits; /* of those, found in the configuration cache (their
                              Jacobian pattern and structural check reused) */
    long n_colorings;      /* column groups of finite-difference Jacobians made
                              by the run (Curtis-Powell-Reid): per configuration,
                              for the integrator and for consistent
                              initialisation, once while it stays in the
                              configuration cache */
    long n_symbolic_analyses; /* symbolic analyses of sparse LU (KLU), the same */
    /* Mechanical modes (hydae_mode_set_mechanics): the largest |Phi_i| at
    ** an accepted step or event, and the coordinate partitions of the ODE
    ** form (the first of each mode entry included). */
    double max_constraint_violation;
    long n_partitions;
    double wall_seconds;   /* wall time of hydae_sim_run */
    /* An explicit method's stiffness detection (RK45, RK853; Hairer &
    ** Wanner's test of DOPRI5): how often it found the problem stiff, and
    ** the time of the first (NaN if never): a stiff method (VSTIFF,
    ** DSTIFF, RADAU) would take fewer steps there. */
    long n_stiff_detections;
    double t_first_stiff;
    long n_band_orderings; /* reverse Cuthill-McKee orderings the band solver
                              took (a wide band it factors permuted,
                              docs/solver.md), counted as n_colorings */
} hydae_stats;

/* Result columns after time: the discrete variables, then every distinct
** variable and output name of every mode, in order of first declaration. */
int hydae_model_n_columns(const hydae_model *m);
const char *hydae_model_column_name(const hydae_model *m, int column);

/* Units and descriptions, for the results (the MAT file's description
** column "description [unit]", a CSV's units line, plot axes; docs/results.md).
** unit: as Modelica writes it ("m/s", "rad", "N.m"); either may be NULL or ""
** (none). Set before the model is checked. A result column takes the first
** unit given to its name: a parameter's or discrete variable's, else in
** declaration order of charts, modes, and in a mode variables before
** outputs; its description likewise. var: index from hydae_mode_add_var,
** output: from hydae_mode_add_output, index: from hydae_model_add_param or
** hydae_model_add_discrete. */
HYDAE_NODISCARD int hydae_mode_set_var_info(hydae_mode *mode, int var, const char *unit,
                                            const char *description);
HYDAE_NODISCARD int hydae_mode_set_output_info(hydae_mode *mode, int output, const char *unit,
                                               const char *description);
HYDAE_NODISCARD int hydae_model_set_global_info(hydae_model *m, int index, const char *unit,
                                                const char *description);
/* A result column's unit and description: "" if none (or no such column). */
const char *hydae_model_column_unit(const hydae_model *m, int column);
const char *hydae_model_column_description(const hydae_model *m, int column);
/* CSV as hydae_sim_add_csv_vars, with a units line after the header: its
** first cell "#unit", then each column's unit (empty if none), quoted as
** the header is. Readers that skip lines starting with '#' skip it. */
HYDAE_NODISCARD int hydae_sim_add_csv_units(hydae_sim *s, FILE *out, const char *vars,
                                            int with_modes);

/* Checks the model; NULL on failure with the reason in *status and the
** model's message. The model must outlive the sim and not change. */
hydae_sim *hydae_sim_create(hydae_model *m, int *status);
void hydae_sim_free(hydae_sim *s);
const char *hydae_sim_errmsg(const hydae_sim *s);

/* Settings. Defaults: t0 = 0, t_end = 10, output interval (t_end-t0)/500,
** rtol = 1e-6, atol = 1e-8, h_max = inf, h_min = 0, h0 = 0 (automatic),
** max_order = 5, cascade limit 100. */
HYDAE_NODISCARD int hydae_sim_set_time(hydae_sim *s, double t0, double t_end);
HYDAE_NODISCARD int hydae_sim_set_output_interval(hydae_sim *s, double dt);
HYDAE_NODISCARD int hydae_sim_set_tolerances(hydae_sim *s, double rtol,
                                             double atol);
HYDAE_NODISCARD int hydae_sim_set_step_limits(hydae_sim *s, double h_min,
                                              double h_max, double h0);
/* Largest order: 1-5 for DSTIFF and VSTIFF, 1-7 for MSTIFF, 1-12 for
** ABAM (default: the method's largest); RK45 and RK4 have a fixed order.
** Checked against the integrator by hydae_sim_validate. */
HYDAE_NODISCARD int hydae_sim_set_max_order(hydae_sim *s, int max_order);
/* The integrator, by name (case-insensitive): "DSTIFF" (default; BDF for
** DAEs), and those registered (see docs/engine.md). Methods for explicit
** ODEs refuse a mode written as a residual, with a message naming it. */
HYDAE_NODISCARD int hydae_sim_set_integrator(hydae_sim *s, const char *name);
HYDAE_NODISCARD int hydae_sim_set_cascade_limit(hydae_sim *s, int limit);
/* The most integration steps (and time-event stops) a run may take
** (default 5e7); beyond, HYDAE_ERR_MAXSTEPS. */
HYDAE_NODISCARD int hydae_sim_set_max_steps(hydae_sim *s, long max_steps);
/* Rows at every accepted step instead of the uniform grid (plus t0, t_end
** and the event rows): 1 on, 0 off (default). */
HYDAE_NODISCARD int hydae_sim_set_output_steps(hydae_sim *s, int every_step);
/* Any setting by name, its value as text: the transient-solver settings of
** Param_Transient (integrator_type, integr_tol, h_max, h_min, h0_max,
** vel_tol_factor, rel_abs_tol_ratio, max_order, dae_alg_tol_factor,
** dae_index, dae_constr_tol, dae_corrector_maxit, dae_corrector_minit,
** dae_vel_ctrl, dae_jacob_eval, dae_eval_expiry, dae_jacob_init,
** dae_interpolation) and hydae's own (t0, t_end, dt, rtol, atol, h0, output,
** cascade_limit, max_steps, dt_min, zeno_events, zeno_window, zeno_policy). HYDAE_ERR_ARG with a message naming the
** setting and the value. docs/solver.md describes each. */
HYDAE_NODISCARD int hydae_sim_set_option(hydae_sim *s, const char *name, const char *value);

/* ------------------------------------------------------------------ */
/* Many sims of one model (docs/engine.md, "Threads")                  */

/* Set a parameter or discrete variable's start value for this sim's runs
** only, over the model's (hydae_model_set_param, which all sims share):
** the sims of one model, each with its own parameters, may then run on
** several threads at once. An unknown name gives HYDAE_ERR_ARG with a
** message listing the names that exist. Between the hydae_sim_advance
** calls of a run in pieces it also changes the value from where the run
** stands on (a tunable parameter): the states keep their values, the
** algebraic unknowns are solved again, the integrator restarts, and a
** guard the change moves past zero does not fire (as at t0); no rows are
** written for it. */
HYDAE_NODISCARD int hydae_sim_set_param(hydae_sim *s, const char *name, double value);
/* Called each time a transition fires (after its action) with the time,
** its chart's name and its own: counts and times of firings without
** keeping results (hydae sweep's count() and first()). A non-zero return
** stops the run (HYDAE_ERR_CALLBACK). One per sim; fn NULL removes it. */
typedef int (*hydae_fired_fn)(void *user, double t, const char *chart,
                              const char *transition);
HYDAE_NODISCARD int hydae_sim_set_fired_hook(hydae_sim *s, hydae_fired_fn fn, void *user);
/* The table of settings: entry i (NULL past the end). */
const char *hydae_option_name(int i);
const char *hydae_option_type(int i);
const char *hydae_option_default(int i);
const char *hydae_option_meaning(int i);
/* Apply the attributes of every <Param_Transient .../> element of an XML
** file as settings (needs expat at build time). Errors name file:line:col. */
HYDAE_NODISCARD int hydae_sim_load_settings(hydae_sim *s, const char *path);
/* Print every corrector iteration to out (NULL: off). */
HYDAE_NODISCARD int hydae_sim_set_debug_newton(hydae_sim *s, FILE *out);
/* Where result rows go. Several sinks may be added. */
HYDAE_NODISCARD int hydae_sim_add_row_sink(hydae_sim *s, hydae_row_fn fn,
                                           void *user);
/* Write results as CSV to an open stream (header first). If the run
** fails or is interrupted (hydae_sim_interrupt), a last line
** "# hydae: stopped early at t = ...: <reason>" is written after the last
** whole row. */
HYDAE_NODISCARD int hydae_sim_add_csv(hydae_sim *s, FILE *out);

/* Check that the settings agree with each other and with the integrator
** (t_end > t0, h_min <= h_max, h0 <= h_max, max_order within the
** method's range, ...): 0, or HYDAE_ERR_ARG with hydae_sim_errmsg naming
** the settings. hydae_sim_run checks the same first; call it to refuse a
** run before opening any output. */
HYDAE_NODISCARD int hydae_sim_validate(hydae_sim *s);

/* Run from t0 to t_end. 0, or a negative status with hydae_sim_errmsg
** naming time, mode and variable. */
HYDAE_NODISCARD int hydae_sim_run(hydae_sim *s);

/* A run in pieces (for a co-simulation master, docs/fmi.md "Export"). The
** first call starts a run as hydae_sim_run does (validation, t0,
** consistent initial values, the events at t0); every call then continues
** the same hybrid loop up to t_target (>= the time reached, <= t_end),
** events and grid rows on the way included, the last step landing exactly
** on t_target (as on a time event: the integrator is not restarted). With
** t_target = t0 it only starts. values (may be NULL; hydae_model_n_columns
** of them) receive the result row at t_target, NaN where a variable has
** no value in the active configuration. The call that reaches t_end, or
** fails, ends the run (the sinks complete; the next call starts a new
** run). Steps ending at every t_target of a run equal to a grid point are
** the steps of hydae_sim_run with dae_interpolation = FALSE: the same
** rows, bit for bit. 0, or a negative status with hydae_sim_errmsg; a
** t_target out of range is HYDAE_ERR_ARG and leaves the run where it is. */
HYDAE_NODISCARD int hydae_sim_advance(hydae_sim *s, double t_target, double *values);

/* Ask a run to stop: it ends at the next step boundary (or the next round
** of a discrete phase), the sinks complete their output marked as stopped
** early, and hydae_sim_run returns HYDAE_INTERRUPTED. Only stores a flag
** (a volatile sig_atomic_t): safe to call from a signal handler or
** another thread. A request made while no run is going stops the next
** run at its start; hydae_sim_run clears it when it returns. */
void hydae_sim_interrupt(hydae_sim *s);

void hydae_sim_get_stats(const hydae_sim *s, hydae_stats *out);
void hydae_sim_print_stats(const hydae_sim *s, FILE *out);
/* Time reached by the last run (t_end on success). */
double hydae_sim_time(const hydae_sim *s);
/* Name of the active mode of chart `chart` (0-based), or NULL. */
const char *hydae_sim_mode_name(const hydae_sim *s, int chart);

/* ------------------------------------------------------------------ */
/* Model files (the modelling language, docs/language.md)              */

/* Compile a model file (.hym) into a model: NULL on any error (a file that
** cannot be read, a syntax or model error, out of memory). `import NAME;`
** finds NAME.hym next to the file, in the directories of $HYDAE_PATH, then
** in hydae's component library (docs/install.md).
**
** diagnostics (may be NULL) receives the compiler's messages as one text,
** each a line "file:line:column: error: message" (or "warning:", "note:")
** followed by the quoted source line and a caret under the column, as
** `hydae check` prints them; NULL when there are none. The text is the
** caller's: free it with hydae_string_free. A model that compiles may come
** with warnings. n_errors (may be NULL) receives the number of errors.
**
** The model holds the file's experiment block (hydae_sim_apply_experiment,
** hydae_model_experiment_setting); hydae_model_free frees it all. Models
** may be loaded and run on several threads at once, and one model by
** several sims on several threads at once (each sim used by one thread at
** a time; hydae_sim_set_param for each sim's parameters). docs/engine.md,
** "Model files" and "Threads". */
hydae_model *hydae_model_load_file(const char *path, char **diagnostics, int *n_errors);
/* The same from text in memory (length bytes, no terminator needed);
** name is the file name the diagnostics show (NULL: "<input>"), and the
** directory of name, if it has one, is where imports are looked up first. */
hydae_model *hydae_model_load_string(const char *text, size_t length, const char *name,
                                     char **diagnostics, int *n_errors);
/* Free a text the library gave the caller (diagnostics). NULL is allowed. */
void hydae_string_free(char *text);
/* hydae_model_load_file with the evaluation backend (docs/language.md,
** "Backends"): "vm" (the bytecode), "native" (generated C compiled by the
** system C compiler and cached: a missing or failing compiler is an error
** in the diagnostics), "auto" (native if a compiler is found, else the
** bytecode with a note); NULL: the environment's HYDAE_BACKEND, else vm.
** An unknown name is an error. */
hydae_model *hydae_model_load_file_backend(const char *path, const char *backend,
                                           char **diagnostics, int *n_errors);

/* The settings of a model file's experiment block, in the order written
** (`experiment t_end = 12, dt = 0.01;`): the name of setting i and, in
** *value (may be NULL), its value as text (numbers with 17 digits), for i
** from 0; NULL past the end, and for a model that is not from a file. The
** texts live as long as the model. */
const char *hydae_model_experiment_setting(const hydae_model *m, int i, const char **value);
/* Apply the experiment block of the sim's model (hydae_model_load_*) to
** the sim, each setting through hydae_sim_set_option: call it after
** hydae_sim_create and before your own settings, which then override the
** file's, as `hydae run` does with its options. 0 (also for a model with no
** experiment), or HYDAE_ERR_ARG with hydae_sim_errmsg naming the setting
** and its line and column. */
HYDAE_NODISCARD int hydae_sim_apply_experiment(hydae_sim *s);

/* ------------------------------------------------------------------ */
/* Results: chosen columns, MAT files, plots, progress, statistics     */
/* (docs/results.md)                                                   */

/* The writers below take `vars`: NULL for their default columns, or a
** comma-separated list of names, each a result column, a parameter, or
** "mode(CHART)" for the active mode of a chart ("time" is always first and
** may be listed or not; a name listed twice is written once). With
** with_modes != 0 every chart's mode is added. An unknown name gives
** HYDAE_ERR_ARG with hydae_sim_errmsg naming it and listing the names
** there are. On a run's failure each writer still writes the rows up to
** it. Write errors show on the stream (ferror), which the caller owns. */

/* Check a list of names as the writers take it, without adding anything:
** 0, or HYDAE_ERR_ARG with hydae_sim_errmsg naming the unknown name. */
HYDAE_NODISCARD int hydae_sim_check_vars(hydae_sim *s, const char *vars);

/* CSV like hydae_sim_add_csv, with chosen columns (default: every result
** column). A mode column holds the mode's name. */
HYDAE_NODISCARD int hydae_sim_add_csv_vars(hydae_sim *s, FILE *out, const char *vars,
                                           int with_modes);
/* A Modelica result file (MATLAB level 4, Dymola/OpenModelica layout,
** "binTrans") written to `out` (opened "wb") when the run ends; rows are
** kept in memory until then. Default columns: every result column and
** every parameter. Parameters constant over the run go to data_1, every
** other column to data_2; NaN where a variable has no value; a mode
** column holds the mode's number (1-based; the description lists them).
** A run that stopped early (failed or interrupted) adds a text matrix
** hydae_status, "stopped early at t = ...: <reason>". */
HYDAE_NODISCARD int hydae_sim_add_mat(hydae_sim *s, FILE *out, const char *vars,
                                      int with_modes);

typedef struct hydae_plot_options {
    const char *vars;    /* time panels, one per name (NULL: every result column) */
    const char *phase_x; /* both set: one x-y phase plot instead of time panels */
    const char *phase_y;
    const char *title;   /* NULL: the model's name */
    int no_clock_ticks;  /* 1: leave out events on a regular grid (sample
                         ** clocks; otherwise thinned when they are dense) */
} hydae_plot_options;

/* An SVG plot written to `out` when the run ends: time panels with the
** active modes as coloured bands and the events as dashed lines, or an
** x-y phase plot coloured by mode with the events numbered. opt may be
** NULL (every result column in time panels). */
HYDAE_NODISCARD int hydae_sim_add_plot(hydae_sim *s, FILE *out, const hydae_plot_options *opt);

/* A progress bar on `out` (meant for a terminal): simulated time,
** percentage, events so far and elapsed time, redrawn at most 10 times a
** second and erased when the run ends. */
HYDAE_NODISCARD int hydae_sim_add_progress(hydae_sim *s, FILE *out);

/* The last run's statistics (hydae_stats), the time reached and the error
** message (null on success) as one JSON object. 0, or HYDAE_ERR_IO if the
** stream reports an error. */
HYDAE_NODISCARD int hydae_sim_write_stats_json(const hydae_sim *s, FILE *out);

/* ------------------------------------------------------------------ */
/* Run-time seams: after-step functions, scheduled time events, nominal */
/* values, a run ended by an action (docs/engine.md, "Run-time seams")  */

/* What an after-step function returns; < 0 stops the run
** (HYDAE_ERR_CALLBACK). */
typedef enum hydae_step_request {
    HYDAE_STEP_CONTINUE = 0, /* nothing to do */
    HYDAE_STEP_EVENT = 1,    /* an event at t: the mode's transitions on
                             ** hydae_transition_on_step_event fire */
    HYDAE_STEP_RESTART = 2   /* what the mode's equations compute changed
                             ** (state kept outside y): the integrator
                             ** restarts at t from the current values */
} hydae_step_request;
/* Called after every accepted step (the end of a step that no event cut
** short) with the mode's variables y and derivatives yp at t, and the
** model's p; user is the mode's (hydae_mode_set_residual / _rhs). Also
** with no variables, at the times a run with nothing to integrate stops
** at. A hydae_step_request or < 0. */
typedef int (*hydae_after_step_fn)(double t, const double *y, const double *yp,
                                   const double *p, void *user);
HYDAE_NODISCARD int hydae_mode_set_after_step(hydae_mode *mode, hydae_after_step_fn fn);
/* Fires when the from-mode's after-step function returns HYDAE_STEP_EVENT
** (the mode must have one). */
HYDAE_NODISCARD int hydae_transition_on_step_event(hydae_transition *tr);

/* Fires at the time an action scheduled for its chart
** (hydae_action_schedule), if the from-mode is active then. */
HYDAE_NODISCARD int hydae_transition_on_schedule(hydae_transition *tr);
/* Schedule the next time event of chart (NULL: the chart of the firing
** transition; the initial action must name one) at t > now: the run steps
** onto t exactly, and there the chart's transitions on
** hydae_transition_on_schedule fire. One time per chart: a new call
** replaces it, t = INFINITY cancels it; it is used up when reached. */
int hydae_action_schedule(hydae_action *a, const hydae_chart *chart, double t);

/* The nominal value of a variable (> 0; default 1): its absolute
** tolerance is the run's atol times |nominal| (as FMI tools use a
** variable's nominal attribute). An atol given with
** hydae_mode_set_tolerances is absolute and not scaled. */
HYDAE_NODISCARD int hydae_mode_set_nominal(hydae_mode *mode, int var, double nominal);
/* From an action: the nominal value (> 0, finite) of the variable name
** (of any mode that has it) for the rest of this sim's run, in place of
** the model's (as an FMU's nominals that change at an event, FMI 2.0.4
** section 3.2.2). The tolerances are rebuilt when the instant's event
** settles and the integrator restarts with them; the model and its
** other sims are unchanged; the next run starts from the model's.
** 0, or HYDAE_ERR_ACTION (the run's message says why). */
int hydae_action_set_nominal(hydae_action *a, const char *name, double nominal);

/* End the run successfully at this instant: the instant completes (the
** other transitions firing now fire, raised events are handled), the
** right limit is written, and hydae_sim_run returns 0 with t < t_end.
** reason (may be NULL) is kept for hydae_sim_stop_reason. */
int hydae_action_stop(hydae_action *a, const char *reason);
/* Why the last run ended before t_end on an action's request (its reason,
** or "stopped by an action"), or NULL if it did not. */
const char *hydae_sim_stop_reason(const hydae_sim *s);

/* ------------------------------------------------------------------ */
/* Parameter studies: grids, samples, measures, on threads            */
/* (docs/sweep.md; `hydae sweep` is a user of these)                   */

/* Many runs of one model, each a sim with its own parameters, on several
** threads; per run, measures computed on the fly (no trajectory kept):
** final values, max, min, integral (trapezoid rule over the output rows)
** of a result column, count and first firing time of a transition. The
** table has a row per run, in run order: run i's parameters depend only on
** the plan and i (grids: their full product, the last axis fastest;
** samples: a counter-based generator of the seed), so it does not depend
** on the number of threads. Create, add grids or distributions and
** measures, set threads, run; then read rows or write the table. One
** thread calls the functions of a sweep (hydae_sweep_interrupt excepted);
** the model must outlive it and is shared read-only by its threads. */
typedef struct hydae_sweep hydae_sweep;

/* A run of the table. measures and status live as long as the sweep;
** params until the callback returns (or the next hydae_sweep_get_row). */
typedef struct hydae_sweep_row {
    long run;                /* 0 .. n_runs - 1 */
    int failed;              /* status is the run's error message */
    const double *params;    /* hydae_sweep_n_params values */
    const double *measures;  /* hydae_sweep_n_measures values, NaN: none
                             ** (first() of a transition that never fired) */
    const char *status;      /* "ok" or the message, on one line */
    long steps;              /* accepted steps */
    double wall_seconds;
} hydae_sweep_row;
/* Called for each run done, in run order. Non-zero stops the sweep
** (hydae_sweep_run then returns HYDAE_ERR_CALLBACK). */
typedef int (*hydae_sweep_row_fn)(void *user, const hydae_sweep_row *row);

/* NULL when out of memory. */
hydae_sweep *hydae_sweep_create(hydae_model *m);
void hydae_sweep_free(hydae_sweep *sw);
const char *hydae_sweep_errmsg(const hydae_sweep *sw);
/* A grid axis: its n_values values (or, _spec, "NAME=START:STEP:STOP" or
** "NAME=V1,V2,..."). Several axes: their full product. */
HYDAE_NODISCARD int hydae_sweep_add_grid(hydae_sweep *sw, const char *name,
                                         const double *values, int n_values);
HYDAE_NODISCARD int hydae_sweep_add_grid_spec(hydae_sweep *sw, const char *spec);
/* A sampled parameter: "NAME=normal(MEAN,SD)" or "NAME=uniform(LOW,HIGH)",
** with hydae_sweep_set_samples (not with grids). */
HYDAE_NODISCARD int hydae_sweep_add_dist(hydae_sweep *sw, const char *spec);
/* n_runs samples of the seed; latin_hypercube 1: one run in each of n_runs
** equally probable strata of every parameter. */
HYDAE_NODISCARD int hydae_sweep_set_samples(hydae_sweep *sw, long n_runs, uint64_t seed,
                                            int latin_hypercube);
/* Measures, a comma-separated list: NAME or final(NAME), max(NAME),
** min(NAME), integral(NAME) of a result column, count(TRANSITION),
** first(TRANSITION) ("NAME" or "CHART.NAME"). None given: the final value
** of every result column. */
HYDAE_NODISCARD int hydae_sweep_add_measures(hydae_sweep *sw, const char *spec);
/* Threads (default 0: one per core). */
HYDAE_NODISCARD int hydae_sweep_set_threads(hydae_sweep *sw, int n_threads);
/* A setting of every run (hydae_sim_set_option), after the model's
** experiment block. */
HYDAE_NODISCARD int hydae_sweep_set_option(hydae_sweep *sw, const char *name,
                                           const char *value);
/* Each run's full result in dir (an existing folder) as run_N.csv or run_N.mat
** (N the run, zero-padded to the digits of the last), as hydae_sim_add_csv
** and hydae_sim_add_mat(s, out, NULL, 0) write them; format "csv" or
** "mat". dir NULL: none (the default). */
HYDAE_NODISCARD int hydae_sweep_set_runs_dir(hydae_sweep *sw, const char *dir,
                                             const char *format);
/* Check the plan against the model (every parameter one a sim takes) and
** fix the number of runs; hydae_sweep_run does it if not done. 0, or a
** negative status with hydae_sweep_errmsg. */
HYDAE_NODISCARD int hydae_sweep_prepare(hydae_sweep *sw);
/* The plan (after hydae_sweep_prepare). */
long hydae_sweep_n_runs(const hydae_sweep *sw);
int hydae_sweep_n_params(const hydae_sweep *sw);
const char *hydae_sweep_param_name(const hydae_sweep *sw, int k);
int hydae_sweep_n_measures(const hydae_sweep *sw);
const char *hydae_sweep_measure_name(const hydae_sweep *sw, int k); /* "max(x)" */
/* Every run (once per sweep); fn (may be NULL) is called from this thread
** for each row in run order. 0 when every run was done (failed runs
** included: hydae_sweep_n_failed), HYDAE_INTERRUPTED after
** hydae_sweep_interrupt (the runs done are in the table),
** HYDAE_ERR_CALLBACK when fn stopped it, or another negative status with
** hydae_sweep_errmsg. */
HYDAE_NODISCARD int hydae_sweep_run(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user);
/* Stop a sweep going: the runs going are interrupted, no new one starts.
** Only stores a flag: safe from a signal handler or another thread. */
void hydae_sweep_interrupt(hydae_sweep *sw);
long hydae_sweep_n_failed(const hydae_sweep *sw);
/* Run i's row: 0, or HYDAE_ERR_ARG when it is not in the table (out of
** range, not run, interrupted). */
HYDAE_NODISCARD int hydae_sweep_get_row(hydae_sweep *sw, long run, hydae_sweep_row *row);
/* The table of the runs done, in run order: CSV (header "run,PARAMS...,
** MEASURES...,status,steps,wall_s"; numbers with 17 digits, an empty field
** for NaN; a last comment line when the sweep was interrupted), or MAT v4:
** double matrix "table" (a row per run: run, params, measures, steps,
** wall_s), text matrices "names" (a row per column of table) and "status"
** (a row per run). 0, or HYDAE_ERR_IO. */
HYDAE_NODISCARD int hydae_sweep_write_csv(const hydae_sweep *sw, FILE *out);
HYDAE_NODISCARD int hydae_sweep_write_mat(const hydae_sweep *sw, FILE *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
