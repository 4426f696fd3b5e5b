/*
** The step-control layer of the integrators (internal; GSL ode-initval2's
** "control/evolve" layer): what VSTIFF and MSTIFF, both Nordsieck-history
** BDF-type methods for explicit ODEs, do alike around their method, and
** the set-up that RK4, RK45, RK853 and ABAM share, and the step loop of
** the embedded Runge-Kutta pairs RK45 and RK853 (hy_erk). A method file
** keeps its formulas, its corrector and its step/order strategy; this
** layer keeps the accept / reject / shrink loop, the history bookkeeping
** and the Newton-matrix reuse rules.
**
**   [BBH89] P.N. Brown, G.D. Byrne, A.C. Hindmarsh, "VODE: a variable-
**           coefficient ODE solver", SIAM J. Sci. Stat. Comput. 10 (1989)
**           1038-1051: the failure strategy (step ratios after error test
**           and convergence failures, order 1 after three error test
**           failures), the iteration matrix reuse rules.
**   [BH75]  G.D. Byrne, A.C. Hindmarsh, ACM TOMS 1 (1975) 71-96: the
**           Nordsieck history, Pascal-triangle prediction, rescaling.
**
** The Nordsieck layer (hy_nsk_*). The method's memory starts with a
** hy_nsk (whose first member is the hy_mem_head, so hy_get_stats and
** hy_worst_component serve it). The history z_0 .. z_deg, z_j = h^j
** P^(j)(t_n)/j!, has degree deg = order + deg_offset (VSTIFF 0: degree q;
** MSTIFF 1: degree k+1). One step():
**   1. the first call evaluates f(t0, y0), chooses h0 ([CV]'s algorithm
**      through hy_ode_initial_step, or opt->h0) and sets z_1 = h0 f;
**   2. a pending order change is applied by the method (its hook);
**   3. an attempt: h bounded by h_max and shortened to land on t_stop,
**      z rescaled to h (method hook on_new_h), predicted (z <- A z, the
**      Pascal triangle, into the second bank: the history before the
**      prediction stays intact and a rejection swaps it back, so nothing
**      is copied), the method's attempt() solves and estimates the error;
**   4. accepted (err <= 1): z <- z + corr l (l from the method), the
**      method's accept(), t, the counters and the weights advance, the
**      method's choose_next(), h_next >= h_min;
**   5. an error test failure: eta = 1/((6 err)^(1/(deg+1)) + 1e-6) in
**      [0.1, 0.9], at most 0.2 from the second failure, 0.1 and a restart
**      at order 1 from y_n and f(t_n, y_n) from the third, 7 at most;
**      a corrector failure: eta = 0.25, 10 at most; then on_reject() and
**      the h_min / roundoff checks ([BBH89]).
** The method's hooks receive the method memory (mem, whose first member
** is the hy_nsk).
*/
#ifndef HY_INTEGRATORS_STEPCTL_H
#define HY_INTEGRATORS_STEPCTL_H

#include "integrators/common.h"
#include "integrators/itmat.h"

/* Largest number of history columns a method keeps (MSTIFF: degree 8
** plus one while raising the order). */
#define HY_NSK_MAX_COLS 10

typedef struct hy_nsk {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    /* Problem and options, copied at init. */
    hy_dae dae;
    double *rtol, *atol;        /* per component */
    double h_user, h_min, h_max;
    double h0_max;              /* cap on the automatic first step (inf: none) */
    int max_order;

    /* History. */
    double t;                   /* t_n, the time z refers to */
    double t_prev;              /* start of the last accepted step */
    double h;                   /* scaling of z */
    int order;                  /* the method's order (q, or k) */
    int deg_offset;             /* degree of z = order + deg_offset */
    int err_power_offset;       /* err ~ h^(order + 1 + err_power_offset)
                                ** (default deg_offset; the error test
                                ** failure's step ratio uses it) */
    int n_cols;                 /* columns allocated in each bank */
    int started;                /* 0 until the first step() formed z_1 */
    long n_steps_since_init;
    double h_next;              /* decisions for the next step */
    int order_next;
    double *z;                  /* z_0 .. z_deg, n each */
    double *z_other;            /* the second bank (see the header) */
    /* l_0 .. l_deg of the accepted step's update z <- z + corr l, set by
    ** the method's attempt(). */
    double l[HY_NSK_MAX_COLS];

    /* Newton iteration matrix P = I - gamma J and the saved J = df/dy. */
    hy_itmat iter;
    int have_jac, have_matrix;
    int jac_fresh;              /* J evaluated during the current attempt */
    double gamma_matrix;        /* gamma with which P was formed */
    long steps_since_matrix, steps_since_jac;
    double conv_rate;

    /* Work vectors of length n. */
    double *y;                  /* corrector iterate */
    double *f;                  /* f at the iterate */
    double *corr;               /* the correction y_{n+1} - z_0 (predicted) */
    double *delta;              /* Newton update */
    double *ewt;                /* 1 / (rtol |y| + atol) */
    double *f_pert;             /* scratch (FD Jacobian; the methods' d_n - d_{n-1}) */
} hy_nsk;

/* Column j of the history. */
static inline double *hy_nsk_col(const hy_nsk *c, int j)
{
    return c->z + (size_t)j * (size_t)c->n;
}

typedef struct hy_nsk_method {
    /* One attempt of a step of size h to t_try from the predicted history
    ** (c->z): solve, leave c->corr = y_{n+1} - z_0 and c->l, and set *err,
    ** the weighted local error estimate (the test passes at <= 1). Returns
    ** HY_EVAL_OK or the corrector's failure. */
    int (*attempt)(void *mem, double t_try, double h, double *err);
    /* After z <- z + corr l of an accepted step, before t advances: the
    ** method's own history. */
    void (*accept)(void *mem, double h);
    /* After t, the counters and the weights advanced: c->h_next and
    ** c->order_next for the next step. */
    void (*choose_next)(void *mem, double err);
    /* z rescaled to a new h before an attempt (NULL: nothing to do). */
    void (*on_new_h)(void *mem);
    /* After a rejected attempt (restarted: at order 1 after error test
    ** failures), before the step size checks. */
    void (*on_reject)(void *mem, int restarted);
    /* Apply c->order_next at the start of a step (z at the old scaling). */
    void (*change_order)(void *mem, int order_new);
} hy_nsk_method;

/* Allocate the vectors of c for size n with n_cols history columns
** (<= HY_NSK_MAX_COLS); c zeroed by the caller. 0, or -1 (free with
** hy_nsk_free). */
int hy_nsk_alloc(hy_nsk *c, int n, int n_cols, int deg_offset);
void hy_nsk_free(hy_nsk *c);

/* The part of init() the methods share: checks dae (n, rhs), t0, opt (step
** bounds, tolerances, max_order >= 0) and y0 (finite, weights), copies the
** problem and options, sets up the linear solver, and resets the history
** to z_0 = y0 at order 1 and the Newton state. max_order_method: the
** method's largest order (opt->max_order above it is capped). HYDAE_OK,
** HYDAE_ERR_ARG or the linear solver's error. */
int hy_nsk_init(hy_nsk *c, const hy_dae *dae, double t0, const double *y0,
                const hy_options *opt, int max_order_method);

/* The descriptor's step() for a Nordsieck method (see the header). */
int hy_nsk_step(void *mem, const hy_nsk_method *method, double t_stop,
                double *t_new);

/* The descriptor's dense(): y and y' at t in [t_prev, t_n] from the
** history polynomial (x = (t - t_n)/h, y = sum z_j x^j, y' = sum j z_j
** x^(j-1) / h); at t = t_n exactly z_0 and z_1/h without the sum. */
int hy_nsk_dense(hy_nsk *c, double t, double *y, double *yp);

/* The Newton iteration matrix for an attempt with gamma at (t, y), f =
** f(t, y) ([BBH89]'s reuse rules): P is re-formed when there is none,
** force_jac is set, gamma changed by more than 30% since it was formed, or
** 20 steps have passed; J re-evaluated (into c->iter) when there is none,
** force_jac, or 50 steps have passed. HY_EVAL_OK or the failure of the
** Jacobian or of the factorisation. */
int hy_nsk_newton_matrix(hy_nsk *c, double t, double h, double gamma,
                         int force_jac);

/* The step ratio 1/((bias err)^(1/p) + 1e-6) that makes an error estimate
** err of an order-p term meet the test with the bias ([BBH89]). */
double hy_nsk_eta(double bias, double err, int p);

/* ------------------------------------------------------------------------
** The explicit methods' shared state and set-up (RK4, RK45, ABAM).
*/

typedef struct hy_explicit {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;
    hy_dae dae;
    double t;                   /* time of the current solution */
    double t_prev;              /* start of the last accepted step */
    int have_f;                 /* f(t, y) is known (where: the method's) */
    long n_steps_since_init;
    int last_step_trivial;      /* last "step" only moved t by roundoff */
    double *y;                  /* solution at t */
    double *yp_init;            /* y'(t0) given to init(), or 0 */
} hy_explicit;

/* Allocate count vectors of length n, zeroed, into *slots[0 ..
** count-1] (NULL where one failed). 0, or -1. */
int hy_alloc_vectors(int n, double **const *slots, size_t count);
void hy_free_vectors(double **const *slots, size_t count);

/* Allocate e->y and e->yp_init (e zeroed by the caller). 0, or -1. */
int hy_explicit_alloc(hy_explicit *e, int n);
void hy_explicit_free(hy_explicit *e);

/* The checks every explicit method makes at init (dae->n, dae->rhs, t0
** finite, y0 and yp0 finite) and the reset of its state at t0: y = y0,
** yp_init = yp0 (or 0), no step taken, statistics' h_last and order_last
** 0. Sets e->initialized only when it succeeds. HYDAE_OK or
** HYDAE_ERR_ARG. The method checks its options before, with
** e->initialized cleared. */
int hy_explicit_init(hy_explicit *e, const hy_dae *dae, double t0,
                     const double *y0, const double *yp0);

/* Start of step(): the checks of mem, t_new and t_stop (*t_new = t), and
** f(t, y) into f_cur when it is not known yet. HYDAE_OK to go on, else
** what step() returns. */
int hy_explicit_begin(hy_explicit *e, double t_stop, double *t_new,
                      double *f_cur);

/* t_stop is within roundoff of t: step() arrives without a step. */
int hy_explicit_at_stop(const hy_explicit *e, double t_stop);

/* One attempt of a variable-step explicit method (RK45, ABAM). */
typedef struct hy_explicit_try {
    double h;                   /* the controller's h bounded by h_max */
    double h_nominal;           /* h, or t_stop - t when the step lands */
    double t_try;               /* where the attempt ends */
    double h_step;              /* t_try - t, the step the formulas take */
    double h_floor;             /* the smallest step allowed at t */
    int lands;                  /* t_try = t_stop */
} hy_explicit_try;

/* Plan an attempt with the controller's step h from e->t towards t_stop:
** bounded by h_max; landing on t_stop when the step would reach it or stop
** within 1% of a step of it (without exceeding h_max); t_try - t, which
** rounding may make differ from h by an ulp of t, kept within h_max.
** HYDAE_OK, or HYDAE_ERR_HMIN when a step that does not land is below
** max(h_min, roundoff) or does not move t. */
int hy_explicit_plan(const hy_explicit *e, double h, double h_min,
                     double h_max, double t_stop, hy_explicit_try *out);

/* Arrival at t_stop within roundoff of t without a step: y moves by
** (t_stop - t) f_cur (below roundoff), t_prev = t, t = t_stop, and the
** step counts as trivial (dense() then returns y). */
void hy_explicit_arrive(hy_explicit *e, double t_stop, const double *f_cur);

/* Bookkeeping of an accepted step of size h (or of a trivial arrival
** when trivial) ending at t_new, at order. */
void hy_explicit_advance(hy_explicit *e, double t_new, double h, int order,
                         int trivial);

/* The start of dense(): HYDAE_ERR_ARG when e is NULL, not initialised or
** t outside [t_prev, t]; 1 at a point where no interpolant applies
** (nothing stepped yet, a trivial arrival, or t = e->t), with y = e->y and
** y' = f_cur, or yp_init when f is not known; 0 when the method
** interpolates. */
int hy_explicit_dense_point(const hy_explicit *e, double t,
                            const double *f_cur, double *y, double *yp);

/* Starting step size of an explicit Runge-Kutta method (RK45, RK853;
** [HNW] II.4, "Starting Step Size", steps a-f) whose error estimate is
** O(h^(1/err_exponent)): with ||.|| the RMS norm scaled by atol_i +
** rtol_i |y0_i|, d0 = ||y0||, d1 = ||f0||, h0 = 0.01 d0/d1 (1e-6 if
** either < 1e-5), one explicit Euler step of h0, d2 = ||f(t0+h0, y0+h0
** f0) - f0|| / h0, h1 = (0.01 / max(d1, d2))^err_exponent (max(1e-6,
** 1e-3 h0) if max(d1, d2) <= 1e-15), h = min(100 h0, h1). h0 is also
** bounded by h_max and t_stop - t0, so that the trial point stays in the
** interval asked for. y_work, f_work: scratch of length n. Returns
** HY_EVAL_RES_FATAL if f fails fatally; a recoverable failure of the trial
** evaluation keeps h = h0. */
int hy_explicit_initial_step(hy_explicit *e, const double *rtol,
                             const double *atol, const double *f0,
                             double err_exponent, double t_stop, double h_max,
                             double *y_work, double *f_work, double *h_out);

/* The stiffness detection of DOPRI5 and DOP853 (Hairer & Wanner II, IV.2,
** "Automatic Stiffness Detection"), after an accepted step of size h whose
** last two stages f_a = f(t + h, y_a), f_b = f(t + h, y_b) share their
** time: h lambda = h ||f_a - f_b|| / ||y_a - y_b|| estimates h times the
** dominant eigenvalue of df/dy. Tested when the step is a multiple of
** HY_STIFF_TEST_PERIOD, and at every step while a positive test is
** pending; h lambda > bound (the method's stability boundary on the
** negative real axis) is positive, HY_STIFF_NEGATIVE negative tests in a
** row clear the count, HY_STIFF_POSITIVE positive ones in a row count one
** detection in e->head.stats.n_stiff_detections (the first one's t + h in
** t_first_stiff). */
#define HY_STIFF_TEST_PERIOD 1000
#define HY_STIFF_POSITIVE 15
#define HY_STIFF_NEGATIVE 6
typedef struct hy_stiffness_test {
    int n_positive;             /* positive tests in a row */
    int n_negative;             /* negative ones since the last positive */
} hy_stiffness_test;
void hy_explicit_stiffness_test(hy_explicit *e, hy_stiffness_test *st,
                                double h, double bound, const double *f_a,
                                const double *f_b, const double *y_a,
                                const double *y_b);

/* ------------------------------------------------------------------------
** The embedded Runge-Kutta pairs' shared state and step loop (RK45,
** RK853): tolerances, step bounds, Hairer's PI step size control
** ([HNW2] IV.2 as in DOPRI5 and DOP853: fac = err^alpha / err_old^beta,
** h_new = h min(fac_max, max(fac_min, safety / fac)), err_old =
** max(err of the last accepted step, 1e-4); after a rejection h
** max(fac_min, safety err^(-alpha)) and no growth on the next accepted
** step), failures of f (h / 4, at most 10 in a row), landing on t_stop.
** The method's memory starts with a hy_erk.
*/

/* Stages of one step, f at each: two banks, so that a rejected attempt
** never spoils the dense output of the accepted step. The working bank's
** k[0] is the current bank's FSAL stage (one vector, not a copy). */
#define HY_ERK_MAX_STAGES 16
typedef struct hy_erk_bank {
    double *k[HY_ERK_MAX_STAGES];
} hy_erk_bank;

typedef struct hy_erk {
    hy_explicit e;              /* first: the shared state (y at t) */
    double *rtol, *atol;        /* per component */
    double h_user;              /* opt->h0, 0 = automatic */
    double h0_max;              /* cap on the automatic first step (inf: none) */
    double h_min, h_max;        /* 0 / +inf = none */
    double h;                   /* step to try next; 0 = not chosen yet */
    double log_err_old;         /* log of the err of the last accepted
                                ** step, at least ERK_ERR_OLD_MIN (PI) */
    hy_stiffness_test stiff;
    double *y_prev;             /* solution at t_prev */
    double *y_new;              /* the attempt's solution */
    double *y_stage;            /* argument of the stage being evaluated */
    int n_stages;               /* stage vectors per bank */
    int fsal;                   /* the stage holding f(t + h, y_new) */
    hy_erk_bank banks[2];
    int cur;                    /* bank of the last accepted step; its
                                ** k[fsal] is f(t, y) once e.have_f */
} hy_erk;

typedef struct hy_erk_method {
    int order;                  /* of the propagated solution */
    double err_exponent;        /* 1/(q+1), q the order of the estimate */
    double pi_alpha, pi_beta;   /* the PI controller's exponents */
    double safety, fac_min, fac_max;
    /* One attempt with step h to t_try from (t, y) into the working bank
    ** banks[1 - cur] (its k[0] is f(t, y)): r->y_new and *err
    ** (the weighted error norm; the test passes at <= 1). HY_EVAL_OK or
    ** the failure of f (HY_EVAL_RES_FAIL retries with h / 4). */
    int (*attempt)(void *mem, double h, double t_try, double *err);
    /* The accepted attempt's own bookkeeping (the stiffness test), before
    ** the working bank becomes the current one and y_new becomes y. */
    void (*accept)(void *mem, double h);
} hy_erk_method;

/* Allocate r->e, the vectors of r and two banks of n_stages (<=
** HY_ERK_MAX_STAGES) stage vectors, stage fsal the FSAL one, which is
** also the other bank's k[0] (r zeroed by the caller). 0, or -1 (free
** with hy_erk_free). */
int hy_erk_alloc(hy_erk *r, int n, int n_stages, int fsal);
void hy_erk_free(hy_erk *r);

/* init() of an embedded pair: checks (rtol_i = atol_i = 0 refused, the
** error scale being atol_i + rtol_i |y_i|; max_order ignored, the order
** being fixed), the reset of the step control and y_prev = y0. HYDAE_OK
** or HYDAE_ERR_ARG. */
int hy_erk_init(hy_erk *r, const hy_dae *dae, double t0, const double *y0,
                const double *yp0, const hy_options *opt);

/* The descriptor's step() of an embedded pair. */
int hy_erk_step(void *mem, const hy_erk_method *m, double t_stop,
                double *t_new);

#endif
