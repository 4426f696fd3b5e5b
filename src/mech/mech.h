/*
** Constrained mechanical systems (internal): the equations of motion
**
**     M(q) u' = F(q, u, t) - Phi_q(q, t)^T lambda       (seed 002, (2.1))
**           q' = u                                      (2.2)
**     Phi(q, t) = 0                                     (2.3)
**
** given by callbacks (mech_system), and the residuals F(t, y, y') = 0 of
** two of seed 002's formulations for DSTIFF:
**
**   I3  (dae_index = 3): y = (q, u, lambda), the equations as they stand,
**       an index-3 DAE. Error test on q only (u and lambda out of it, seed
**       002: "ignore local integration error in {u} and {lambda}").
**   SI1 (dae_index = 1): y = (q, u, lambda, mu), the stabilised form of
**       Gear, Gupta & Leimkuhler:
**           q' - u + Phi_q^T mu = 0
**           M u' - F + Phi_q^T lambda = 0
**           Phi = 0
**           Phi_q u + Phi_t = 0
**       (C.W. Gear, B. Leimkuhler, G.K. Gupta, "Automatic integration of
**       Euler-Lagrange equations with constraints", J. Comput. Appl. Math.
**       12-13 (1985) 77-90; mu = 0 on the exact solution). Error
**       test on q and, with dae_vel_ctrl, u; lambda and mu are scaled by
**       dae_alg_tol_factor and kept out of the test.
**
** Layout of y (and of the residual's rows, equation block k belongs to
** variable block k): q[0..n_q), u[n_q..2 n_q), lambda[2 n_q..2 n_q+n_c),
** and for SI1 mu[2 n_q+n_c..2 n_q+2 n_c).
**
** Matrices are dense, column-major: M[i + j n_q], G = Phi_q with
** G[i + j n_c] = dPhi_i/dq_j.
*/
#ifndef HY_MECH_H
#define HY_MECH_H

#include "integrators/integrator.h"

/* Callbacks return 0 on success, > 0 recoverable, < 0 fatal (as hy_res_fn). */
typedef struct mech_system {
    int n_q;                    /* coordinates */
    int n_c;                    /* constraints (rows of Phi) */
    void *user;
    /* M(q, t), n_q x n_q, symmetric positive definite on the manifold. */
    int (*mass)(double t, const double *q, double *mass, void *user);
    /* F(q, u, t): applied, gyroscopic and centrifugal forces, n_q. */
    int (*force)(double t, const double *q, const double *u, double *f, void *user);
    /* Phi(q, t), n_c. */
    int (*constraint)(double t, const double *q, double *phi, void *user);
    /* Phi_q(q, t), n_c x n_q. */
    int (*constraint_jac)(double t, const double *q, double *g, void *user);
    /* Phi_t(q, t), n_c; NULL for scleronomic constraints (Phi_t = 0). */
    int (*constraint_t)(double t, const double *q, double *phi_t, void *user);
    /* gamma = -((Phi_q u)_q u + 2 Phi_qt u + Phi_tt), n_c: the right-hand
    ** side of the acceleration constraint Phi_q u' = gamma. Used by the
    ** consistent start (mech_consistent_start) and by every evaluation of
    ** the ODE formulation (mech_ode_rhs). */
    int (*accel_rhs)(double t, const double *q, const double *u, double *gamma,
                     void *user);
    /* C(q, t), n_q x n_c, when the dynamics are M u' = F - C lambda with C
    ** other than Phi_q^T (a model's own multiplier terms); NULL: Phi_q^T.
    ** Phi_q M^-1 C must be invertible. */
    int (*multiplier_matrix)(double t, const double *q, double *c, void *user);
} mech_system;

/* Variable classes of y (seed 002, Table 1). */
enum { MECH_POSITION = 0, MECH_VELOCITY = 1, MECH_MULTIPLIER = 2 };

/* A formulation of a mech_system as a DAE: owns its workspace. */
typedef struct mech_dae {
    const mech_system *sys;
    int dae_index;              /* 3 (I3) or 1 (SI1) */
    int n;                      /* size of y */
    unsigned char *kind;        /* per component MECH_POSITION ... */
    unsigned char *is_algebraic;/* per component: lambda, mu */
    double *mass, *force, *g, *c, *phi, *phi_t, *gt_lambda, *gt_mu;
    double *jac_y, *jac_res0, *jac_res1; /* mech_jacobian's scratch, n each */
    /* Largest |Phi_i| seen at an accepted point (mech_track_drift). */
    double max_drift;
} mech_dae;

/* Set up md for sys and dae_index (3 or 1). 0, HYDAE_ERR_ARG or HYDAE_ERR_NOMEM. */
int mech_dae_init(mech_dae *md, const mech_system *sys, int dae_index);
void mech_dae_free(mech_dae *md);

/* The residual of md's formulation as a hy_dae, Jacobian by the
** integrator's differences (ctx is md, which must outlive it);
** mech_dae_problem_for adds mech_jacobian where it is used. */
hy_dae mech_dae_problem(mech_dae *md);

/* J = dF/dy + cj dF/dy' of mech_residual (hy_jac_fn, ctx a mech_dae,
** dense column-major n x n). Exact where the callbacks give the
** derivative: Phi_q in the constraint rows (position columns) and in the
** velocity constraint's velocity columns, C (or Phi_q^T) in the lambda
** and mu columns, M in the dynamics rows' u' part, I and -I in the
** kinematics rows. Forward differences only for the q and u columns of
** the remaining rows (d(M u' - F + C lambda)/dq, -dF/du, d(Phi_q^T mu)/dq,
** d(Phi_q u + Phi_t)/dq), with increments sqrt(uround) max(|x_j|, max_k
** |x_k|) over the positions or the velocities (1 when all are 0): scaled
** by the coordinates, not by the tolerance. With the integrators'
** difference quotients (increments sqrt(uround) times the tolerance
** floor) the constraint rows of a coordinate starting at 0 were all
** rounding noise: Andrews' theta at integr_tol 1e-9 (docs/mechanics.md). */
int mech_jacobian(double t, double cj, const double *y, const double *yp, double *jac,
                  void *ctx);

/* The residual itself (hy_res_fn), ctx a mech_dae. */
int mech_residual(double t, const double *y, const double *yp, double *res, void *ctx);

/* Tolerances of seed 002's Table 1: RTOL = rel_abs_tol_ratio integr_tol
** scale, ATOL = integr_tol scale, scale 1 for q, vel_tol_factor for u,
** dae_alg_tol_factor for lambda and mu; and the error-test exclusion:
** I3 keeps q only, SI1 keeps q and (vel_ctrl != 0) u. Arrays of md->n. */
void mech_tolerances(const mech_dae *md, double integr_tol, double rel_abs_tol_ratio,
                     double vel_tol_factor, double alg_tol_factor, int vel_ctrl,
                     double *rtol, double *atol, unsigned char *err_test_exclude);

/* Index of each component for DSTIFF's hy_options.var_index. I3: q 1,
** u 2, lambda 3, so that the Newton updates of u and lambda are measured
** times h and h^2 (unscaled, the corrector fails repeatedly at small
** steps: measured on the pendulum, see docs/mechanics.md). SI1: mu 2,
** the rest 1 - mu's Newton update is O(1/h) times the residual's
** roundoff, so unscaled the corrector cannot converge at the small first
** steps of Andrews' mechanism (measured: HYDAE_ERR_CONV at t = 0 for
** integr_tol <= 1e-6); scaling lambda by h as well costs the pendulum up
** to 1 digit (measured), scaling neither was the first version. Array of
** md->n. */
void mech_var_index(const mech_dae *md, unsigned char *var_index);

/* The index of each component in the Hessenberg sense, Hairer & Wanner's
** (Solving ODEs II, VII.8; [HLR] in radau.c) for Radau IIA: I3 q 1, u 2,
** lambda 3; SI1 q and u 1, lambda and mu 2 (the GGL system is of index 2
** in both). RADAU needs lambda scaled in SI1: unscaled, its Newton
** updates are O(1/h) times the residual's rounding, and Andrews'
** mechanism stopped with HYDAE_ERR_HMIN or HYDAE_ERR_CONV at integr_tol
** 1e-6 .. 1e-12 (measured, docs/mechanics.md). Array of md->n. */
void mech_var_index_hessenberg(const mech_dae *md, unsigned char *var_index);

/* The DAE form of md for method, and var_index (md->n) for its options:
** DSTIFF gets mech_var_index and the integrator's own difference
** Jacobian (its scd floors in tests/validation were measured so); every
** other method mech_var_index_hessenberg and mech_jacobian. 0, or
** HYDAE_ERR_ARG when method solves explicit ODEs only (needs_rhs): the
** I3 and SI1 forms are implicit DAEs, the ODE form is mech_ode's. */
int mech_dae_problem_for(mech_dae *md, const hy_integrator_ops *method, hy_dae *dae,
                         unsigned char *var_index);

/* Consistent y0, yp0 at t0 from positions q0 and velocities u0 that
** satisfy Phi = 0 and Phi_q u + Phi_t = 0: u' and lambda from
**     [ M  G^T ] [ u'     ]   [ F     ]
**     [ G  0   ] [ lambda ] = [ gamma ]
** (the index-1 form, [BCP] K.E. Brenan, S.L. Campbell, L.R. Petzold, SIAM
** 1996, ch. 6 on mechanical systems), q' = u, mu = 0, and lambda' and mu' = 0 (algebraic:
** they enter only the first predictor). 0, or < 0 (HYDAE_ERR_RESIDUAL,
** HYDAE_ERR_NOMEM, HYDAE_ERR_SINGULAR). */
int mech_consistent_start(mech_dae *md, double t0, const double *q0, const double *u0,
                          double *y0, double *yp0);

/* Project (q, u) onto the constraints, in place: q onto Phi(q, t) = 0 by
** Gauss-Newton steps of least change, q -= G^T (G G^T)^-1 Phi, until max
** |Phi_i| <= constr_tol (at most 20 steps); then u M-orthogonally onto
** Phi_q u + Phi_t = 0,
**     [ M  C ] [ u_new ]   [ M u    ]
**     [ G  0 ] [ nu    ] = [ -Phi_t ]
** - the velocity after a perfectly plastic impact on the constraints,
** M (u_new - u) = -C nu (the impulse). work: mech_accel_work_len doubles,
** iwork n_q + n_c ints. 0, a callback's status, HYDAE_ERR_SINGULAR, or
** HYDAE_ERR_CONV (the positions did not converge; q holds the last iterate). */
int mech_project(const mech_system *sys, double t, double constr_tol, double *q, double *u,
                 double *work, int *iwork);

/* max |Phi_i(q, t)| at y, also kept in md->max_drift (the largest so
** far). < 0 if Phi failed. */
double mech_track_drift(mech_dae *md, double t, const double *y);

/* u' and lambda at (t, q, u) from the index-1 saddle-point system
**     [ M  G^T ] [ u'     ]   [ F     ]
**     [ G  0   ] [ lambda ] = [ gamma ]
** ([BCP] ch. 6), by LU with partial pivoting. work: mech_accel_work_len
** doubles, iwork: n_q + n_c ints. 0, a callback's nonzero status, or
** HYDAE_ERR_SINGULAR. */
size_t mech_accel_work_len(const mech_system *sys);
int mech_accelerations(const mech_system *sys, double t, const double *q, const double *u,
                       double *work, int *iwork, double *up, double *lambda);

/* ------------------------------------------------------------------------
** The ODE formulation by generalized coordinate partitioning (seed 002:
** "transforms the DAE form equations of motion into ODE form equations
** using coordinate partitioning"; R.A. Wehage, E.J. Haug, "Generalized
** coordinate partitioning for dimension reduction in analysis of
** constrained dynamic systems", J. Mech. Des. 104 (1982) 247-255).
**
** Partition: Gaussian elimination with complete (row and column) pivoting
** of Phi_q (n_c x n_q) at a point; the n_c pivot columns are the
** dependent coordinates q_d, the other n_i = n_q - n_c the independent
** q_i. The state of the ODE is y = (q_i, u_i), n = 2 n_i (independent
** positions first, then their velocities, in increasing coordinate
** order). f(t, y):
**   1. q_d from Phi(q_i, q_d, t) = 0 by Newton's method (Phi_qd
**      refactored each iteration), started from the tangent predictor at
**      the last accepted point (mech_ode_partition,
**      mech_ode_check_partition): q_d* + T (q_i - q_i*) + T_t (t - t*),
**      T = -Phi_qd^-1 Phi_qi, T_t = -Phi_qd^-1 Phi_t there; stopped one
**      update after max_i |Phi_i| <= constr_tol (dae_constr_tol), so that
**      q_d is at roundoff and f a function of (t, y) alone, to the bit
**      (what the finite-difference Jacobians of VSTIFF and MSTIFF need;
**      see solve_dependent in mech_ode.c); no convergence in
**      newton_maxit + 1 updates: once more from the q_d of the last
**      accepted point itself, then f returns 1 (recoverable: the
**      integrator cuts the step);
**   2. u_d from Phi_q u + Phi_t = 0: Phi_qd u_d = -(Phi_qi u_i + Phi_t);
**   3. u' and lambda from mech_accelerations;
**   4. y' = (u_i, u'_i).
** Re-partition: the dependent block's quality is its smallest LU pivot
** (partial pivoting) over the largest |entry| of Phi_q, at the converged
** q. mech_ode_check_partition, called by the driver at accepted points,
** computes it there and re-partitions when it has fallen below
** pivot_drop (default 0.3) times its value right after the last
** partition; if the columns change, the state changes meaning and the
** integrator must be restarted (init) from the new y. An error in q_i
** reaches q_d amplified by |Phi_qd^-1 Phi_qi|, about 1/quality, which the
** error test (on q_i, u_i only) does not see: measured on the pendulum
** through the bottom of its swing (VSTIFF, integr_tol 1e-8), the energy
** error is 1.2e-5 with pivot_drop 0.1, 1.1e-6 with 0.3, 0.5 or 0.7.
** Within a step, mech_ode_rhs fails recoverably (1) at a stage whose
** quality is below pivot_drop^2 times the reference: the integrator cuts
** the step, whose end re-partitions.
*/
typedef struct mech_ode {
    const mech_system *sys;
    int n;                      /* size of y: 2 n_i */
    int n_i;                    /* independent coordinates, n_q - n_c */
    double constr_tol;          /* dae_constr_tol: Newton stops one update after max |Phi_i| <= it */
    int newton_maxit;           /* iterations per evaluation (default 10), and the final one */
    double pivot_drop;          /* re-partition below this times the reference (0.3) */
    int *indep, *dep;           /* coordinate indices, n_i and n_c, ascending */
    double *q, *u;              /* full q, u of the last successful evaluation */
    double *q_try;              /* Newton iterate */
    double *q_accepted;         /* full q at the last accepted point */
    double t_accepted;          /* its time */
    double *tangent;            /* -Phi_qd^-1 Phi_qi there, n_c x n_i (Newton's predictor) */
    double *tangent_t;          /* -Phi_qd^-1 Phi_t there, n_c (0 when Phi_t is NULL) */
    double *up, *lambda;        /* u', lambda of the last successful evaluation */
    double *g, *phi, *phi_t, *gd, *rhs_c;
    int *piv_c;
    double *accel_work;
    int *accel_iwork;
    double *f_work;             /* residual wrapper's scratch, n */
    double pivot_ref;           /* quality right after the last partition */
    double pivot_last;          /* quality at the last successful evaluation */
    long n_partitions;          /* partitions done (the first included) */
    long n_restarts;            /* re-partitions that changed the columns */
    long n_evals, n_newton_iters, n_newton_fails;
    long n_newton_fallbacks;    /* Newton restarted from q_accepted (predictor failed) */
    double max_drift;           /* largest max |Phi_i| seen by mech_ode_track_drift */
} mech_ode;

/* Set up mo for sys (which needs accel_rhs when n_c > 0, and n_c < n_q).
** 0, HYDAE_ERR_ARG or HYDAE_ERR_NOMEM. */
int mech_ode_init(mech_ode *mo, const mech_system *sys, double constr_tol);
void mech_ode_free(mech_ode *mo);

/* Partition at (t, q, u), which must satisfy the position and velocity
** constraints, and write y = (q_i, u_i) (n = mo->n). 0, HYDAE_ERR_RESIDUAL or
** HYDAE_ERR_SINGULAR (Phi_q rank deficient). */
int mech_ode_partition(mech_ode *mo, double t, const double *q, const double *u, double *y);

/* The explicit ODE y' = f(t, y) as a hy_dae: rhs (for VSTIFF, MSTIFF,
** ABAM, RK45) and the residual y' - f (for DSTIFF); FD Jacobian. ctx is
** mo, which must outlive it. */
hy_dae mech_ode_problem(mech_ode *mo);
int mech_ode_rhs(double t, const double *y, double *ydot, void *ctx);
int mech_ode_residual(double t, const double *y, const double *yp, double *res, void *ctx);

/* The full solution at (t, y): q, u (n_q each), u' (n_q) and lambda (n_c);
** any output may be NULL. 0, > 0 (Newton did not converge) or < 0. */
int mech_ode_complete(mech_ode *mo, double t, const double *y, double *q, double *u,
                      double *up, double *lambda);

/* Table 1's tolerances for y: integr_tol times 1 for q_i and
** vel_tol_factor for u_i; RTOL = rel_abs_tol_ratio ATOL. Arrays of mo->n. */
void mech_ode_tolerances(const mech_ode *mo, double integr_tol, double rel_abs_tol_ratio,
                         double vel_tol_factor, double *rtol, double *atol);

/* At an accepted point (t, y): re-partition if the dependent block's
** quality has fallen below pivot_drop times its reference (see above).
** Returns 1 when the coordinates changed - y then holds the new state and
** the integrator must be re-initialised from (t, y, f(t, y)) - 0 when
** nothing changed (the reference may have been reset), < 0 on failure. */
int mech_ode_check_partition(mech_ode *mo, double t, double *y);

/* max |Phi_i| at the full q of (t, y), kept in mo->max_drift as well.
** < 0 on failure. */
double mech_ode_track_drift(mech_ode *mo, double t, const double *y);

#endif
