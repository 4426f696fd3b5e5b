/*
** Mechanical modes in the configuration (hydae_mode_set_mechanics): the
** formulation the settings choose (seed 002), the mode's block of y in it,
** and the way back to the mode's own variables (q, u, lambda) for guards,
** outputs and the value store.
**
**   integrator for explicit ODEs (VSTIFF, MSTIFF, ABAM, RK45, RK4):
**       the ODE form by coordinate partitioning, y = (q_i, u_i)
**       (mech/mech_ode.c; Wehage & Haug 1982); re-partitioned at accepted
**       steps, which restarts the integrator;
**   DSTIFF or RADAU, dae_index = 3: I3, y = (q, u, lambda), error test
**       on q only, u and lambda scaled by h and h^2 in the corrector
**       (var_index);
**   DSTIFF or RADAU, dae_index = 1: SI1 (Gear, Gupta & Leimkuhler 1985),
**       y = (q, u, lambda, mu), error test on q and, with dae_vel_ctrl, u.
** The per-method choices (the index of each component, DSTIFF's own
** difference Jacobian or mech_jacobian) are mech_dae_problem_for's.
**
** On entering the mode the positions are projected onto Phi = 0 and the
** velocities M-orthogonally onto Phi_q u + Phi_t = 0 (mech_project: a
** perfectly plastic impact); u' and lambda follow from the index-1 system.
*/
#include "block.h"
#include "sim.h"

#include "linalg/linsol.h"

#include "mech/mech.h"
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dae_constr_tol when the setting is off: the Newton tolerance of the
** projection and of the ODE form's dependent coordinates, in the
** constraints' units. */
#define HY_MECH_CONSTR_TOL_DEFAULT 1e-10

enum { HY_FORM_I3, HY_FORM_SI1, HY_FORM_ODE };

typedef struct hy_mech_block {
    hydae_sim *sim;
    const hydae_mode *mode;
    int form;
    int n;                      /* components in y */
    mech_system sys;            /* the mode's callbacks with p = the store */
    mech_dae md;                /* I3, SI1 */
    mech_ode mo;                /* ODE */
    double *decl, *decl_p;      /* (q, u, lambda) and (u, u', 0) */
    double *work;               /* mech_accel_work_len */
    int *iwork;                 /* n_q + n_c */
    char **mu_names;            /* SI1: names of the mu components */
    const hy_integrator_ops *method;
    int exact_jacobian;         /* I3, SI1 with mech_jacobian (mech_dae_problem_for) */
    double *jac_dense;          /* its n x n values */
} hy_mech_block;

/* ---- the mode's callbacks as a mech_system ---- */

static const double *params(const hy_mech_block *b)
{
    return b->sim->store;
}

static int call_mass(double t, const double *q, double *mass, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.mass(t, q, params(b), mass, b->mode->mech_user);
}

static int call_force(double t, const double *q, const double *u, double *f, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.force(t, q, u, params(b), f, b->mode->mech_user);
}

static int call_constraint(double t, const double *q, double *phi, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.constraint(t, q, params(b), phi, b->mode->mech_user);
}

static int call_constraint_jac(double t, const double *q, double *g, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.constraint_jac(t, q, params(b), g, b->mode->mech_user);
}

static int call_constraint_t(double t, const double *q, double *phi_t, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.constraint_t(t, q, params(b), phi_t, b->mode->mech_user);
}

static int call_accel_rhs(double t, const double *q, const double *u, double *gamma,
                          void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.accel_rhs(t, q, u, params(b), gamma, b->mode->mech_user);
}

static int call_multiplier_matrix(double t, const double *q, double *c, void *user)
{
    hy_mech_block *b = user;
    return b->mode->mech.multiplier_matrix(t, q, params(b), c, b->mode->mech_user);
}

/* ---- formulation and size ---- */

static int choose_form(const hydae_sim *s, const hy_integrator_ops *method)
{
    if (method->needs_rhs)
        return HY_FORM_ODE;
    return s->set.dae_index == 3 ? HY_FORM_I3 : HY_FORM_SI1;
}

static const char *form_name(int form)
{
    return form == HY_FORM_I3 ? "I3" : form == HY_FORM_SI1 ? "SI1" : "ODE";
}

static int form_size(const hydae_mode *mode, int form)
{
    int n_q = mode->mech.n_q, n_c = mode->mech.n_c;
    switch (form) {
    case HY_FORM_I3:
        return 2 * n_q + n_c;
    case HY_FORM_SI1:
        return 2 * n_q + 2 * n_c;
    default:
        return 2 * (n_q - n_c);
    }
}

static double constr_tol(const hydae_sim *s)
{
    return s->set.constr_tol > 0.0 ? s->set.constr_tol : HY_MECH_CONSTR_TOL_DEFAULT;
}

static void block_free(hy_mech_block *b)
{
    if (!b)
        return;
    mech_dae_free(&b->md);
    mech_ode_free(&b->mo);
    if (b->mu_names)
        for (int k = 0; k < b->mode->mech.n_c; k++)
            hy_free(b->mu_names[k]);
    hy_free(b->mu_names);
    hy_free(b->jac_dense);
    hy_free(b->decl);
    hy_free(b->decl_p);
    hy_free(b->work);
    hy_free(b->iwork);
    hy_free(b);
}

static void op_free(hy_block *block)
{
    block_free(block->data);
    block->data = NULL;
}

static hy_mech_block *block_new(hydae_sim *s, const hydae_mode *mode, int form)
{
    hy_mech_block *b = hy_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    const hydae_mechanics *mech = &mode->mech;
    int n_q = mech->n_q, n_c = mech->n_c, n_decl = 2 * n_q + n_c;
    b->sim = s;
    b->mode = mode;
    b->form = form;
    b->sys.n_q = n_q;
    b->sys.n_c = n_c;
    b->sys.user = b;
    b->sys.mass = call_mass;
    b->sys.force = call_force;
    b->sys.constraint = mech->constraint ? call_constraint : NULL;
    b->sys.constraint_jac = mech->constraint_jac ? call_constraint_jac : NULL;
    b->sys.constraint_t = mech->constraint_t ? call_constraint_t : NULL;
    b->sys.accel_rhs = mech->accel_rhs ? call_accel_rhs : NULL;
    b->sys.multiplier_matrix = mech->multiplier_matrix ? call_multiplier_matrix : NULL;
    b->decl = hy_malloc(sizeof(double) * (size_t)n_decl);
    b->decl_p = hy_malloc(sizeof(double) * (size_t)n_decl);
    b->work = hy_malloc(sizeof(double) * mech_accel_work_len(&b->sys));
    b->iwork = hy_malloc(sizeof(int) * (size_t)(n_q + n_c));
    int status = !b->decl || !b->decl_p || !b->work || !b->iwork;
    if (!status && form == HY_FORM_ODE)
        status = mech_ode_init(&b->mo, &b->sys, constr_tol(s));
    else if (!status)
        status = mech_dae_init(&b->md, &b->sys, form == HY_FORM_I3 ? 3 : 1);
    if (!status && form == HY_FORM_SI1) {
        b->mu_names = hy_calloc((size_t)(n_c > 0 ? n_c : 1), sizeof(char *));
        status = !b->mu_names;
        for (int k = 0; k < n_c && !status; k++) {
            const char *lambda_name = mode->vars[2 * n_q + k].name;
            size_t len = strlen(lambda_name) + 32;
            b->mu_names[k] = hy_malloc(len);
            if (!b->mu_names[k])
                status = 1;
            else
                snprintf(b->mu_names[k], len, "mu of %s (SI1)", lambda_name);
        }
    }
    if (status) {
        block_free(b);
        return NULL;
    }
    b->n = form_size(mode, form);
    return b;
}

/* The mode's variable that component i of the block stands for. */
static int declared_var(const hy_mech_block *b, int i)
{
    int n_q = b->mode->mech.n_q, n_c = b->mode->mech.n_c;
    if (b->form == HY_FORM_ODE) {
        int n_i = b->mo.n_i;
        return i < n_i ? b->mo.indep[i] : n_q + b->mo.indep[i - n_i];
    }
    return i < 2 * n_q + n_c ? i : i - n_c; /* SI1: mu_k stands with lambda_k */
}

static const char *op_component_name(const hy_block *block, int i)
{
    const hy_mech_block *b = block->data;
    int n_q = b->mode->mech.n_q, n_c = b->mode->mech.n_c;
    if (b->form == HY_FORM_SI1 && i >= 2 * n_q + n_c)
        return b->mu_names[i - 2 * n_q - n_c];
    return b->mode->vars[declared_var(b, i)].name;
}

static double max_abs(const double *v, int n)
{
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(v[i]));
    return worst;
}

static void update_violation(hydae_sim *s, double violation)
{
    if (violation > s->stats.max_constraint_violation)
        s->stats.max_constraint_violation = violation;
}

/* Per component of the block: tolerances, error test, algebraic flag and
** index (for DSTIFF's scaling). */
static void set_block_flags(hydae_sim *s, hy_mech_block *b, int off)
{
    if (b->form != HY_FORM_ODE) {
        hy_dae dae; /* cannot fail: choose_form gives I3, SI1 to implicit methods only */
        (void)mech_dae_problem_for(&b->md, b->method, &dae, s->var_index + off);
        b->exact_jacobian = dae.jac != NULL;
    }
    int n_q = b->mode->mech.n_q;
    for (int i = 0; i < b->n; i++) {
        int v = declared_var(b, i);
        hy_set_component_tolerances(s, &b->mode->vars[v], off + i);
        int is_position = v < n_q, is_velocity = v >= n_q && v < 2 * n_q;
        int in_test;
        if (b->form == HY_FORM_ODE)
            in_test = 1;
        else if (b->form == HY_FORM_I3)
            in_test = is_position;
        else
            in_test = is_position || (is_velocity && s->set.vel_ctrl);
        s->err_exclude[off + i] = (unsigned char)!in_test;
        s->is_algebraic[off + i] = b->form == HY_FORM_ODE ? 0 : b->md.is_algebraic[i];
        if (b->form == HY_FORM_ODE)
            s->var_index[off + i] = 1;
    }
}

static int op_size(const hy_block *block, const hy_integrator_ops *method)
{
    return form_size(block->mode, choose_form(block->sim, method));
}

static int op_enter(hy_block *block, int off, const hy_integrator_ops *method)
{
    hydae_sim *s = block->sim;
    const hydae_mode *mode = block->mode;
    const hydae_mechanics *mech = &mode->mech;
    int n_q = mech->n_q;
    hy_mech_block *b = block_new(s, mode, choose_form(s, method));
    if (!b)
        return HYDAE_ERR_NOMEM;
    block->data = b;
    b->method = method;
    block->is_explicit = b->form == HY_FORM_ODE;
    block->uses_var_index = b->form != HY_FORM_ODE;
    double t = s->t;
    double *q = b->decl, *u = b->decl + n_q;
    for (int i = 0; i < 2 * n_q; i++) {
        double v = s->store[mode->vars[i].slot];
        b->decl[i] = isnan(v) ? mode->vars[i].start : v;
    }
    int status = mech_project(&b->sys, t, constr_tol(s), q, u, b->work, b->iwork);
    if (status == HYDAE_ERR_NOMEM)
        return status;
    if (status) {
        hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: %s (dae_constr_tol %g)", mode->name,
                    t, status == HYDAE_ERR_SINGULAR ? "the constraints' Jacobian Phi_q, or the "
                                                   "system [M C; Phi_q 0], is singular"
                       : status == HYDAE_ERR_CONV ? "the positions could not be brought onto the "
                                                 "constraints Phi = 0 by Newton's method"
                                               : "a mechanics callback failed",
                    constr_tol(s));
        return HYDAE_ERR_INIT;
    }
    if (b->form == HY_FORM_ODE) {
        status = mech_ode_partition(&b->mo, t, q, u, s->y + off);
        if (!status)
            status = mech_ode_rhs(t, s->y + off, s->yp + off, &b->mo);
        s->stats.n_partitions++;
    } else {
        status = mech_consistent_start(&b->md, t, q, u, s->y + off, s->yp + off);
    }
    if (status == HYDAE_ERR_NOMEM) {
        hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: out of memory", mode->name, t);
        return HYDAE_ERR_NOMEM;
    }
    if (status) {
        hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: no consistent start in the %s form "
                    "(%s)", mode->name, t, form_name(b->form),
                    status == HYDAE_ERR_SINGULAR ? "[M C; Phi_q 0] or Phi_q is singular"
                                              : "a mechanics callback failed");
        return HYDAE_ERR_INIT;
    }
    set_block_flags(s, b, off);
    if (mech->n_c > 0 && b->sys.constraint(t, q, b->work, b) == 0)
        update_violation(s, max_abs(b->work, mech->n_c));
    return 0;
}

static int op_residual(hy_block *block, double t, const double *y, const double *yp, double *res)
{
    hy_mech_block *b = block->data;
    return b->form == HY_FORM_ODE ? mech_ode_residual(t, y, yp, res, &b->mo)
                                  : mech_residual(t, y, yp, res, &b->md);
}

static int op_rhs(hy_block *block, double t, const double *y, double *ydot)
{
    hy_mech_block *b = block->data;
    return mech_ode_rhs(t, y, ydot, &b->mo);
}

static const hy_pattern *op_pattern(const hy_block *block)
{
    (void)block;
    return NULL; /* dense (mech/ has no pattern yet) */
}

static int op_has_jacobian(const hy_block *block)
{
    const hy_mech_block *b = block->data;
    return b != NULL && b->exact_jacobian;
}

/* mech_jacobian's dense values into the solver's matrix at (off, off);
** entries without a place in its storage are dropped. */
static int op_jacobian(hy_block *block, size_t off, double t, double cj, const double *y,
                       const double *yp, hy_matrix *jac)
{
    hy_mech_block *b = block->data;
    size_t n = (size_t)b->n;
    if (b->jac_dense == NULL && !(b->jac_dense = hy_malloc(n * n * sizeof(double))))
        return -1;
    int status = mech_jacobian(t, cj, y, yp, b->jac_dense, &b->md);
    if (status != 0)
        return status;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double *place = hy_matrix_at(jac, off + i, off + j);
            if (place)
                *place = b->jac_dense[i + j * n];
        }
    return 0;
}

static int op_expand(hy_block *block, double t, const double *y, const double *yp,
                       const double **y_decl, const double **yp_decl)
{
    hy_mech_block *b = block->data;
    hydae_sim *s = block->sim;
    int n_q = b->mode->mech.n_q, n_c = b->mode->mech.n_c;
    if (b->form == HY_FORM_ODE) {
        int status = mech_ode_complete(&b->mo, t, y, b->decl, b->decl + n_q, b->decl_p + n_q,
                                       b->decl + 2 * n_q);
        if (status) {
            hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: the dependent coordinates "
                        "could not be solved from the constraints (dae_constr_tol %g)",
                        b->mode->name, t, constr_tol(s));
            return HYDAE_ERR_CONV;
        }
        memcpy(b->decl_p, b->decl + n_q, sizeof(double) * (size_t)n_q);
    } else {
        /* u' and lambda of the index-1 system at the integrated q and u, not
        ** the integrator's: BDF's multipliers of an index-3 system carry
        ** O(1) errors after step size changes (Gear, Gupta & Leimkuhler
        ** 1985), and guards on a reaction force chattered on them
        ** (measured: the Cartesian string pendulum in I3, 3922 false
        ** switches). */
        (void)yp;
        memcpy(b->decl, y, sizeof(double) * (size_t)(2 * n_q));
        int status = mech_accelerations(&b->sys, t, b->decl, b->decl + n_q, b->work, b->iwork,
                                        b->decl_p + n_q, b->decl + 2 * n_q);
        if (status) {
            hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: the accelerations and "
                        "multipliers could not be solved (%s)", b->mode->name, t,
                        status == HYDAE_ERR_SINGULAR ? "[M C; Phi_q 0] is singular"
                                                  : "a mechanics callback failed");
            return HYDAE_ERR_RESIDUAL;
        }
        memcpy(b->decl_p, b->decl + n_q, sizeof(double) * (size_t)n_q);
    }
    for (int k = 0; k < n_c; k++)
        b->decl_p[2 * n_q + k] = 0.0;
    *y_decl = b->decl;
    *yp_decl = b->decl_p;
    return 0;
}

/* Constraint drift into the statistics; the ODE form's re-partition,
** which restarts the integrator. */
static int op_after_step(hy_block *block, double t, double *y, double *yp)
{
    hydae_sim *s = block->sim;
    hy_mech_block *b = block->data;
    if (b->mode->mech.n_c == 0)
        return 0;
    int restart = 0;
    double violation;
    if (b->form != HY_FORM_ODE) {
        violation = mech_track_drift(&b->md, t, y);
    } else {
        long partitions = b->mo.n_partitions;
        int changed = mech_ode_check_partition(&b->mo, t, y);
        if (changed == HYDAE_ERR_NOMEM)
            return changed;
        if (changed < 0) {
            hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: the coordinates could not "
                        "be partitioned again (Phi_q rank deficient?)", b->mode->name, t);
            return HYDAE_ERR_SINGULAR;
        }
        s->stats.n_partitions += b->mo.n_partitions - partitions;
        if (changed == 1) {
            if (mech_ode_rhs(t, y, yp, &b->mo) != 0) {
                hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: no derivative after a "
                            "new partition of the coordinates", b->mode->name, t);
                return HYDAE_ERR_RESIDUAL;
            }
            restart = 1;
        }
        /* check_partition left the converged q in mo.q: no second
        ** Newton solve for the violation. */
        violation = b->sys.constraint(t, b->mo.q, b->work, b) == 0
                        ? max_abs(b->work, b->mode->mech.n_c)
                        : -1.0;
    }
    if (violation < 0.0) {
        hy_sim_fail(s, "mechanical mode '%s' at t = %.17g: the constraints could not be "
                    "evaluated", b->mode->name, t);
        return HYDAE_ERR_RESIDUAL;
    }
    update_violation(s, violation);
    return restart;
}

const hy_block_ops hy_block_mechanical = {
    "mechanical",
    1,
    op_size,
    op_enter,
    op_residual,
    op_rhs,
    op_pattern,
    op_has_jacobian,
    op_jacobian,
    op_expand,
    hy_block_mode_guards,
    hy_block_mode_store,
    op_component_name,
    op_after_step,
    op_free,
};
