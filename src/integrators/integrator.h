/*
** Integrator interface: one descriptor per method (GSL ode-initval2 style),
** so adding an integrator touches no existing file. The hybrid loop (sim/)
** drives every integrator through this table only.
**
** The problem is always posed as a DAE F(t, y, y') = 0 of size n; explicit
** ODEs are wrapped by the caller as y' - f(t, y) = 0.
*/
#ifndef HY_INTEGRATOR_H
#define HY_INTEGRATOR_H

#include "hydae.h"

#include <stddef.h>

/* Result of a call into the problem's functions: 0 success, > 0 recoverable
** (the integrator retries with a smaller step), < 0 unrecoverable. */
typedef int (*hy_res_fn)(double t, const double *y, const double *yp,
                         double *res, void *ctx);
/* Explicit form y' = f(t, y), when the problem has one. */
typedef int (*hy_rhs_fn)(double t, const double *y, double *ydot, void *ctx);
/* J = dF/dy + cj * dF/dy', dense, column-major: J[i + j*n] = dF_i/dy_j. */
typedef int (*hy_jac_fn)(double t, double cj, const double *y,
                         const double *yp, double *jac, void *ctx);
/* The same J into a matrix of any storage (linalg/linsol.h: dense, band
** or sparse on the problem's pattern): every entry of its structure is
** written (the caller does not zero it). */
struct hy_matrix;
typedef int (*hy_jac_matrix_fn)(double t, double cj, const double *y,
                                const double *yp, struct hy_matrix *jac,
                                void *ctx);

typedef struct hy_dae {
    int n;
    hy_res_fn res;
    hy_jac_fn jac;          /* NULL: finite differences */
    void *ctx;
    /* Per-component 1 if algebraic (y'_i does not appear in F), else 0.
    ** NULL means every component is differential. Used to exclude
    ** algebraic components from the local error test when asked. */
    const unsigned char *is_algebraic;
    /* Non-NULL when the problem is an explicit ODE: then F = y' - f(t, y),
    ** and df/dy = -(J with cj = 0). Methods for ODEs only require it. */
    hy_rhs_fn rhs;
    /* The structure of J (linalg/linsol.h; its diagonal always present),
    ** or NULL: dense. With a pattern the Jacobian comes from jac_matrix,
    ** or from finite differences by column groups; jac (dense) is then
    ** used only when the solver's matrix is dense. */
    const struct hy_pattern *pattern;
    hy_jac_matrix_fn jac_matrix;
} hy_dae;

/* One corrector iteration, for --debug-newton (seed 002's DebugOutput). */
typedef struct hy_newton_info {
    double t, h;
    int order;
    int iteration;          /* M, 0-based */
    double update_norm;     /* weighted RMS norm of the Newton update */
    double rate;            /* convergence rate estimate, 0 if none yet */
    int jacobian_refreshed; /* a new Jacobian was formed for this iteration */
    int converged;
} hy_newton_info;

typedef struct hy_options {
    double rtol;            /* relative tolerance, used if rtol_vec NULL */
    const double *rtol_vec; /* per-component relative tolerance, or NULL */
    double atol;            /* scalar absolute tolerance, used if atol_vec NULL */
    const double *atol_vec; /* per-component absolute tolerance, or NULL */
    double h0;              /* first step; 0 = automatic */
    double h_min;           /* smallest |h| allowed; 0 = none */
    double h_max;           /* largest |h| allowed; 0 or inf = none */
    int max_order;          /* 0 = the method's largest; above it: capped */
    long max_steps;         /* per call of step(); unused by one-step mode */
    int suppress_alg;       /* 1: algebraic components out of the error test */
    /* Per component 1: out of the local error test (e.g. velocities when
    ** dae_vel_ctrl = FALSE), or NULL. */
    const unsigned char *err_test_exclude;
    double h0_max;          /* cap on the automatic first step; 0 = none */
    /* Corrector settings of Param_Transient (seed 002); 0 = the method's
    ** default. Methods without a Newton corrector ignore them. */
    int corrector_maxit;    /* dae_corrector_maxit: iterations per attempt */
    int corrector_minit;    /* dae_corrector_minit: before the divergence test */
    double constr_tol;      /* dae_constr_tol: |F_i| of algebraic equations */
    int jacob_eval;         /* dae_jacob_eval: new J when M mod this = 0 */
    int jacob_init;         /* dae_jacob_init: new J when M < this */
    long eval_expiry;       /* dae_eval_expiry: steps the pattern holds; 0 = always */
    /* Called after every corrector iteration when non-NULL (--debug-newton). */
    void (*newton_debug)(void *debug_ctx, const struct hy_newton_info *info);
    void *debug_ctx;
    /* Per component the index of the variable in a DAE of Hessenberg form
    ** (1, 2 or 3; 0 counts as 1), or NULL (all 1). DSTIFF measures the
    ** Newton update and the local error of an index-2 component times h,
    ** of an index-3 component times h^2 (constrained mechanics: q 1, u 2,
    ** lambda 3; see dstiff.c), and once a fresh finite-difference
    ** iteration matrix fails to converge it switches to increments floored
    ** at the tolerance (eval_iter_matrix). RADAU scales its norms the same
    ** way (Hairer & Wanner's index-2/3 scaling); other methods ignore it. */
    const unsigned char *var_index;
    /* The linear solver of the iteration matrix (hy_ls_kind of
    ** linalg/linsol.h: 0 auto, dense, band, klu). */
    int linear_solver;
    /* RADAU's order: 5, 9 or 13 (3, 5, 7 stages), or 0 chosen per step. */
    int radau_order;
    /* 1: the caller asks dense() only for the end of the last step, so a
    ** method whose interpolant costs more evaluations of f (RK853's dense
    ** stages) skips them, and dense() inside the step fails with
    ** HYDAE_ERR_ARG; 0: dense output anywhere in the last step. */
    int no_interpolation;
} hy_options;

typedef struct hy_stats {
    long n_steps;           /* accepted steps */
    long n_err_fails;       /* steps rejected by the local error test */
    long n_conv_fails;      /* corrector (Newton) convergence failures */
    long n_res_evals;       /* residual evaluations, finite differences included */
    long n_jac_evals;       /* Jacobian evaluations (analytic or FD) */
    long n_lu;              /* LU factorisations */
    long n_newton_iters;    /* corrector iterations */
    double h_last;          /* last step size taken */
    int order_last;         /* order of the last step */
    /* Explicit methods with stiffness detection (RK45, RK853): times the
    ** test found the problem stiff (h |lambda| at the stability boundary
    ** over many steps): a stiff method (VSTIFF) would fit it better. */
    long n_stiff_detections;
    double t_first_stiff;   /* end of the step of the first one, if any */
} hy_stats;

/* init()/step() return 0, HY_TSTOP, or a negative hydae_status: the
** integrators and the simulator share one vocabulary (hydae.h). */
enum { HY_TSTOP = 1 /* the step landed exactly on t_stop */ };

typedef struct hy_integrator_ops {
    const char *name;
    /* Allocate for problem size n. NULL on out of memory. */
    void *(*create)(int n);
    /* Start at t0 with consistent (y0, yp0). Resets statistics' step
    ** history but not the counters (counters accumulate over restarts). */
    int (*init)(void *mem, const hy_dae *dae, double t0, const double *y0,
                const double *yp0, const hy_options *opt);
    /* Take one successful step towards t_stop, never past it. On return
    ** *t_new is the time reached; HY_TSTOP when *t_new == t_stop exactly. */
    int (*step)(void *mem, double t_stop, double *t_new);
    /* y and y' at t in [t_prev, t_new] of the last step (dense output of
    ** the order used). Either output may be NULL. */
    int (*dense)(void *mem, double t, double *y, double *yp);
    void (*get_stats)(const void *mem, hy_stats *out);
    /* Index of the component with the largest weighted local error (or
    ** Newton correction) in the last failed step; -1 if unknown. */
    int (*worst_component)(const void *mem);
    void (*destroy)(void *mem);
    /* Capabilities. */
    int needs_rhs;          /* solves explicit ODEs only (dae->rhs required) */
    int fixed_step;         /* steps of exactly h_max (classic RK4) */
    int uses_matrix;        /* solves with an iteration matrix (linear_solver) */
    int max_order;          /* largest order max_order may ask; 0: fixed order */
} hy_integrator_ops;

/* The integrators, one descriptor each (one file each). */
extern const hy_integrator_ops hy_dstiff;
extern const hy_integrator_ops hy_rk45;
extern const hy_integrator_ops hy_rk853;
extern const hy_integrator_ops hy_rk4;
extern const hy_integrator_ops hy_abam;
extern const hy_integrator_ops hy_vstiff;
extern const hy_integrator_ops hy_mstiff;
extern const hy_integrator_ops hy_radau;
/* Not in hy_integrators[] (not a user's choice): the hybrid loop runs a
** configuration without differential unknowns on it (algebraic.c). */
extern const hy_integrator_ops hy_algebraic;

/* The descriptor called name (case-insensitive), or NULL; and the list of
** all, NULL-terminated, for messages and help. */
const hy_integrator_ops *hy_integrator_find(const char *name);
extern const hy_integrator_ops *const hy_integrators[];

#endif
