/*
** CVODE BDF and IDA with band and KLU matrices on an sp_problem (see
** sparse_sundials.h). The problem computes df/dy in its pattern's order;
** a CSC SUNMatrix gets the pattern's structure (the linear-solver
** interface zeroes the structure before each Jacobian call, so it is
** written every time) and the values in place; a band SUNMatrix gets the
** values scattered into its columns from a scratch array.
*/
#include "sparse_sundials.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>

_Static_assert(sizeof(sunindextype) == sizeof(int64_t),
               "the pattern's int64_t indices are SUNDIALS' sunindextype");

/* What the callbacks need: the problem and a scratch for band values. */
typedef struct sp_user {
    const sp_problem *p;
    double *values;             /* nnz, band matrices only */
} sp_user;

static int rhs_adapter(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data)
{
    const sp_user *u = user_data;
    return u->p->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), u->p->ctx);
}

/* F = y' - f(t, y). */
static int res_adapter(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res, void *user_data)
{
    const sp_user *u = user_data;
    double *r = N_VGetArrayPointer(res);
    const double *ydot = N_VGetArrayPointer(yp);
    int status = u->p->rhs(t, N_VGetArrayPointer(y), r, u->p->ctx);
    if (status != 0)
        return status;
    for (size_t i = 0; i < u->p->n; i++)
        r[i] = ydot[i] - r[i];
    return 0;
}

/* scale * df/dy + shift I into jac (band or CSC). */
static int fill_jacobian(const sp_user *u, double t, N_Vector y, double scale, double shift,
                         SUNMatrix jac)
{
    const sp_problem *p = u->p;
    if (SUNMatGetID(jac) == SUNMATRIX_SPARSE) {
        double *values = SUNSparseMatrix_Data(jac);
        memcpy(SUNSparseMatrix_IndexPointers(jac), p->col_start, (p->n + 1) * sizeof(int64_t));
        memcpy(SUNSparseMatrix_IndexValues(jac), p->row, p->nnz * sizeof(int64_t));
        int status = p->dfdy(t, N_VGetArrayPointer(y), values, p->ctx);
        if (status != 0)
            return status;
        if (scale != 1.0)
            for (size_t k = 0; k < p->nnz; k++)
                values[k] *= scale;
        if (shift != 0.0)
            for (size_t j = 0; j < p->n; j++)
                values[p->diag[j]] += shift;
        return 0;
    }
    int status = p->dfdy(t, N_VGetArrayPointer(y), u->values, p->ctx);
    if (status != 0)
        return status;
    for (size_t j = 0; j < p->n; j++) {
        double *col = SUNBandMatrix_Column(jac, (sunindextype)j);
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
            col[p->row[k] - (int64_t)j] = scale * u->values[k];
        col[0] += shift;
    }
    return 0;
}

static int cvode_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix jac, void *user_data,
                     N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    (void)fy;
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    return fill_jacobian(user_data, t, y, 1.0, 0.0, jac);
}

static int ida_jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector res,
                   SUNMatrix jac, void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    (void)yp;
    (void)res;
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    return fill_jacobian(user_data, t, y, -1.0, cj, jac);
}

#define SUN_CALL(where_, call)                                      \
    do {                                                            \
        flag = (call);                                              \
        if (flag < 0) {                                             \
            snprintf(why, why_size, "%s: flag %d", where_, flag);   \
            goto done;                                              \
        }                                                           \
    } while (0)

static void counters_cvode(void *mem, sp_counters *out)
{
    long count = 0, lin = 0;
    CVodeGetNumSteps(mem, &count);
    out->n_steps = count;
    CVodeGetNumRhsEvals(mem, &count);
    CVodeGetNumLinRhsEvals(mem, &lin);
    out->n_f_evals = count + lin;
    CVodeGetNumJacEvals(mem, &count);
    out->n_jac_evals = count;
    CVodeGetNumLinSolvSetups(mem, &count);
    out->n_lu = count;
    CVodeGetNumNonlinSolvIters(mem, &count);
    out->n_nl_iters = count;
    CVodeGetNumErrTestFails(mem, &count);
    out->n_err_fails = count;
    CVodeGetNumNonlinSolvConvFails(mem, &count);
    out->n_conv_fails = count;
    out->n_rejected = out->n_err_fails + out->n_conv_fails;
}

static void counters_ida(void *mem, sp_counters *out)
{
    long count = 0, lin = 0;
    IDAGetNumSteps(mem, &count);
    out->n_steps = count;
    IDAGetNumResEvals(mem, &count);
    IDAGetNumLinResEvals(mem, &lin);
    out->n_f_evals = count + lin;
    IDAGetNumJacEvals(mem, &count);
    out->n_jac_evals = count;
    IDAGetNumLinSolvSetups(mem, &count);
    out->n_lu = count;
    IDAGetNumNonlinSolvIters(mem, &count);
    out->n_nl_iters = count;
    IDAGetNumErrTestFails(mem, &count);
    out->n_err_fails = count;
    IDAGetNumNonlinSolvConvFails(mem, &count);
    out->n_conv_fails = count;
    out->n_rejected = out->n_err_fails + out->n_conv_fails;
}

int sp_sundials_solve(SUNContext ctx, const sp_problem *p, sp_method method, sp_matrix matrix,
                      double rtol, double atol, double *y_out, sp_counters *out, char *why,
                      size_t why_size)
{
    const sunindextype n = (sunindextype)p->n;
    int flag = -1;
    sunrealtype t_reached = p->t0;
    void *mem = NULL;
    N_Vector yp = NULL;
    SUNMatrix mat = NULL;
    SUNLinearSolver ls = NULL;
    sp_user user = {p, NULL};
    memset(out, 0, sizeof *out);
    snprintf(why, why_size, "out of memory");
    N_Vector y = N_VNew_Serial(n, ctx);
    if (!y)
        goto done;
    memcpy(N_VGetArrayPointer(y), p->y0, p->n * sizeof(double));
    if (matrix == SP_BAND) {
        /* SUNBandMatrix keeps mu + ml upper diagonals for the LU's fill. */
        mat = SUNBandMatrix(n, (sunindextype)p->mu, (sunindextype)p->ml, ctx);
        user.values = malloc(p->nnz * sizeof(double));
        ls = mat && user.values ? SUNLinSol_Band(y, mat, ctx) : NULL;
    } else {
        mat = SUNSparseMatrix(n, n, (sunindextype)p->nnz, CSC_MAT, ctx);
        ls = mat ? SUNLinSol_KLU(y, mat, ctx) : NULL;
    }
    if (!ls)
        goto done;
    if (method == SP_CVODE) {
        mem = CVodeCreate(CV_BDF, ctx);
        if (!mem)
            goto done;
        SUN_CALL("CVodeInit", CVodeInit(mem, rhs_adapter, p->t0, y));
        SUN_CALL("CVodeSStolerances", CVodeSStolerances(mem, rtol, atol));
        SUN_CALL("CVodeSetUserData", CVodeSetUserData(mem, &user));
        SUN_CALL("CVodeSetLinearSolver", CVodeSetLinearSolver(mem, ls, mat));
        SUN_CALL("CVodeSetJacFn", CVodeSetJacFn(mem, cvode_jac));
        SUN_CALL("CVodeSetMaxNumSteps", CVodeSetMaxNumSteps(mem, 50000000L));
        SUN_CALL("CVodeSetStopTime", CVodeSetStopTime(mem, p->t_end));
        SUN_CALL("CVode", CVode(mem, p->t_end, y, &t_reached, CV_NORMAL));
    } else {
        /* consistent y'(t0) = f(t0, y0) */
        yp = N_VNew_Serial(n, ctx);
        if (!yp)
            goto done;
        p->rhs(p->t0, p->y0, N_VGetArrayPointer(yp), p->ctx);
        mem = IDACreate(ctx);
        if (!mem)
            goto done;
        SUN_CALL("IDAInit", IDAInit(mem, res_adapter, p->t0, y, yp));
        SUN_CALL("IDASStolerances", IDASStolerances(mem, rtol, atol));
        SUN_CALL("IDASetUserData", IDASetUserData(mem, &user));
        SUN_CALL("IDASetLinearSolver", IDASetLinearSolver(mem, ls, mat));
        SUN_CALL("IDASetJacFn", IDASetJacFn(mem, ida_jac));
        SUN_CALL("IDASetMaxNumSteps", IDASetMaxNumSteps(mem, 50000000L));
        SUN_CALL("IDASetStopTime", IDASetStopTime(mem, p->t_end));
        SUN_CALL("IDASolve", IDASolve(mem, p->t_end, &t_reached, y, yp, IDA_NORMAL));
    }
    if (t_reached != p->t_end) {
        snprintf(why, why_size, "stopped at t = %.17g", t_reached);
        flag = -1;
    } else {
        memcpy(y_out, N_VGetArrayPointer(y), p->n * sizeof(double));
        why[0] = '\0';
        flag = 0;
    }
done:
    if (mem) {
        if (method == SP_CVODE) {
            counters_cvode(mem, out);
            CVodeFree(&mem);
        } else {
            counters_ida(mem, out);
            IDAFree(&mem);
        }
    }
    if (ls)
        SUNLinSolFree(ls);
    if (mat)
        SUNMatDestroy(mat);
    free(user.values);
    if (yp)
        N_VDestroy(yp);
    if (y)
        N_VDestroy(y);
    return flag < 0 ? flag : 0;
}
