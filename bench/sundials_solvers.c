/*
** The SUNDIALS side of the benchmarks: IDA, CVODE BDF, CVODE Adams and
** ARKODE ERKStep (Dormand-Prince 5(4)) as bench_solvers (see
** sundials_solvers.h). The adapters pass the N_Vector data arrays to the
** bench_case's functions as they are; SUNDenseMatrix data is column-major
** with leading dimension n, the layout of hy_jac_fn, so it is filled in
** place. Each run creates and frees everything but the SUNContext, and
** ends with one call in NORMAL mode with the stop time t_end.
*/
#include "sundials_solvers.h"

#include <stdio.h>
#include <string.h>

#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

static SUNContext sun_ctx;

int bench_sundials_open(void)
{
    return SUNContext_Create(NULL, &sun_ctx) == 0 ? 0 : -1;
}

void bench_sundials_close(void)
{
    SUNContext_Free(&sun_ctx);
}

SUNContext bench_sundials_context(void)
{
    return sun_ctx;
}

const char *bench_sundials_version(void)
{
    return SUNDIALS_VERSION;
}

/* ------------------------------------------------------------------------
** Adapters
*/

static int res_adapter(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res,
                       void *user_data)
{
    const bench_case *bc = user_data;
    return bc->dae.res(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                       N_VGetArrayPointer(res), bc->dae.ctx);
}

static int ida_jac_adapter(sunrealtype t, sunrealtype cj, N_Vector y,
                           N_Vector yp, N_Vector res, SUNMatrix jac,
                           void *user_data, N_Vector tmp1, N_Vector tmp2,
                           N_Vector tmp3)
{
    (void)res;
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    const bench_case *bc = user_data;
    return bc->dae.jac(t, cj, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                       SUNDenseMatrix_Data(jac), bc->dae.ctx);
}

static int rhs_adapter(sunrealtype t, N_Vector y, N_Vector ydot,
                       void *user_data)
{
    const bench_case *bc = user_data;
    return bc->dae.rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot),
                       bc->dae.ctx);
}

/* df/dy = -(J with cj = 0), as hydae's ODE methods form it; fy = f(t, y)
** stands for y', which the ODE problems' Jacobians do not use. */
static int cvode_jac_adapter(sunrealtype t, N_Vector y, N_Vector fy,
                             SUNMatrix jac, void *user_data, N_Vector tmp1,
                             N_Vector tmp2, N_Vector tmp3)
{
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    const bench_case *bc = user_data;
    double *dfdy = SUNDenseMatrix_Data(jac);
    int status = bc->dae.jac(t, 0.0, N_VGetArrayPointer(y),
                             N_VGetArrayPointer(fy), dfdy, bc->dae.ctx);
    if (status != 0)
        return status;
    long n_entries = (long)bc->dae.n * bc->dae.n;
    for (long k = 0; k < n_entries; k++)
        dfdy[k] = -dfdy[k];
    return 0;
}

/* ------------------------------------------------------------------------
** Common tail of a run: solution, status and counters.
*/

static void store_outcome(const bench_case *bc, int flag, double t_reached,
                          N_Vector y, const char *package, bench_result *out)
{
    if (flag >= 0 && t_reached == bc->t_end) {
        snprintf(out->status, sizeof out->status, "ok");
        memcpy(out->y, N_VGetArrayPointer(y),
               (size_t)bc->dae.n * sizeof(double));
    } else {
        snprintf(out->status, sizeof out->status, "%s flag %d at t=%.3g",
                 package, flag, t_reached);
    }
}

#define SUN_CALL(call)          \
    do {                        \
        flag = (call);          \
        if (flag < 0)           \
            goto done;          \
    } while (0)

/* ------------------------------------------------------------------------
** IDA
*/

static int ida_solve(const bench_solver *solver, const bench_run *run,
                     bench_result *out)
{
    (void)solver;
    const bench_case *bc = run->bc;
    int n = bc->dae.n, flag = -1;
    sunrealtype t_reached = bc->t0;
    void *mem = NULL;
    N_Vector y = N_VNew_Serial(n, sun_ctx);
    N_Vector yp = N_VNew_Serial(n, sun_ctx);
    N_Vector id = N_VNew_Serial(n, sun_ctx);
    SUNMatrix mat = SUNDenseMatrix(n, n, sun_ctx);
    SUNLinearSolver lin_solver = NULL;
    if (!y || !yp || !id || !mat)
        goto done;
    for (int i = 0; i < n; i++) {
        NV_Ith_S(y, i) = bc->y0[i];
        NV_Ith_S(yp, i) = bc->yp0[i];
        NV_Ith_S(id, i) =
            bc->dae.is_algebraic && bc->dae.is_algebraic[i] ? 0.0 : 1.0;
    }
    lin_solver = SUNLinSol_Dense(y, mat, sun_ctx);
    mem = IDACreate(sun_ctx);
    if (!lin_solver || !mem)
        goto done;
    SUN_CALL(IDAInit(mem, res_adapter, bc->t0, y, yp));
    SUN_CALL(IDASStolerances(mem, run->rtol, run->atol));
    SUN_CALL(IDASetUserData(mem, (void *)bc));
    SUN_CALL(IDASetLinearSolver(mem, lin_solver, mat));
    if (run->analytic_jac)
        SUN_CALL(IDASetJacFn(mem, ida_jac_adapter));
    SUN_CALL(IDASetMaxOrd(mem, run->max_order > 0 ? run->max_order : 5));
    SUN_CALL(IDASetMaxNumSteps(mem, BENCH_STEP_LIMIT));
    SUN_CALL(IDASetStopTime(mem, bc->t_end));
    /* Tells IDA which components are algebraic; the error test still
    ** includes them (suppressalg stays off, as in hydae). */
    SUN_CALL(IDASetId(mem, id));
    SUN_CALL(IDASolve(mem, bc->t_end, &t_reached, y, yp, IDA_NORMAL));
done:
    if (out) {
        store_outcome(bc, flag, t_reached, y, "IDA", out);
        if (mem) {
            long count = 0, fd_evals = 0;
            IDAGetNumSteps(mem, &count);
            out->n_steps = count;
            IDAGetNumResEvals(mem, &count);
            IDAGetNumLinResEvals(mem, &fd_evals);
            out->n_f_evals = count + fd_evals;
            IDAGetNumJacEvals(mem, &count);
            out->n_jac_evals = count;
            /* dense solver: each setup is one Jacobian and one LU */
            IDAGetNumLinSolvSetups(mem, &count);
            out->n_lu = count;
            IDAGetNumErrTestFails(mem, &count);
            out->n_err_fails = count;
            IDAGetNumNonlinSolvConvFails(mem, &count);
            out->n_conv_fails = count;
            IDAGetNumNonlinSolvIters(mem, &count);
            out->n_nl_iters = count;
        }
    }
    if (mem)
        IDAFree(&mem);
    if (lin_solver)
        SUNLinSolFree(lin_solver);
    if (mat)
        SUNMatDestroy(mat);
    if (id)
        N_VDestroy(id);
    if (yp)
        N_VDestroy(yp);
    if (y)
        N_VDestroy(y);
    return flag >= 0 && t_reached == bc->t_end;
}

/* ------------------------------------------------------------------------
** CVODE
*/

static int cvode_solve(int lmm, const bench_run *run, bench_result *out)
{
    const bench_case *bc = run->bc;
    int n = bc->dae.n, flag = -1;
    sunrealtype t_reached = bc->t0;
    void *mem = NULL;
    SUNMatrix mat = NULL;
    SUNLinearSolver lin_solver = NULL;
    SUNNonlinearSolver fixed_point = NULL;
    N_Vector y = N_VNew_Serial(n, sun_ctx);
    if (!y)
        goto done;
    for (int i = 0; i < n; i++)
        NV_Ith_S(y, i) = bc->y0[i];
    mem = CVodeCreate(lmm, sun_ctx);
    if (!mem)
        goto done;
    SUN_CALL(CVodeInit(mem, rhs_adapter, bc->t0, y));
    SUN_CALL(CVodeSStolerances(mem, run->rtol, run->atol));
    SUN_CALL(CVodeSetUserData(mem, (void *)bc));
    if (lmm == CV_BDF) {
        mat = SUNDenseMatrix(n, n, sun_ctx);
        lin_solver = mat ? SUNLinSol_Dense(y, mat, sun_ctx) : NULL;
        if (!lin_solver) {
            flag = -1;
            goto done;
        }
        SUN_CALL(CVodeSetLinearSolver(mem, lin_solver, mat));
        if (run->analytic_jac)
            SUN_CALL(CVodeSetJacFn(mem, cvode_jac_adapter));
    } else {
        fixed_point = SUNNonlinSol_FixedPoint(y, 0, sun_ctx);
        if (!fixed_point) {
            flag = -1;
            goto done;
        }
        SUN_CALL(CVodeSetNonlinearSolver(mem, fixed_point));
    }
    if (run->max_order > 0)
        SUN_CALL(CVodeSetMaxOrd(mem, run->max_order));
    SUN_CALL(CVodeSetMaxNumSteps(mem, BENCH_STEP_LIMIT));
    SUN_CALL(CVodeSetStopTime(mem, bc->t_end));
    SUN_CALL(CVode(mem, bc->t_end, y, &t_reached, CV_NORMAL));
done:
    if (out) {
        store_outcome(bc, flag, t_reached, y, "CVODE", out);
        if (mem) {
            long count = 0, fd_evals = 0;
            CVodeGetNumSteps(mem, &count);
            out->n_steps = count;
            CVodeGetNumRhsEvals(mem, &count);
            if (lmm == CV_BDF)
                CVodeGetNumLinRhsEvals(mem, &fd_evals);
            out->n_f_evals = count + fd_evals;
            if (lmm == CV_BDF) {
                CVodeGetNumJacEvals(mem, &count);
                out->n_jac_evals = count;
                /* dense solver: each setup is one LU of I - gamma J */
                CVodeGetNumLinSolvSetups(mem, &count);
                out->n_lu = count;
            }
            CVodeGetNumErrTestFails(mem, &count);
            out->n_err_fails = count;
            CVodeGetNumNonlinSolvConvFails(mem, &count);
            out->n_conv_fails = count;
            CVodeGetNumNonlinSolvIters(mem, &count);
            out->n_nl_iters = count;
        }
    }
    if (mem)
        CVodeFree(&mem);
    if (fixed_point)
        SUNNonlinSolFree(fixed_point);
    if (lin_solver)
        SUNLinSolFree(lin_solver);
    if (mat)
        SUNMatDestroy(mat);
    if (y)
        N_VDestroy(y);
    return flag >= 0 && t_reached == bc->t_end;
}

static int cvode_bdf_solve(const bench_solver *solver, const bench_run *run,
                           bench_result *out)
{
    (void)solver;
    return cvode_solve(CV_BDF, run, out);
}

static int cvode_adams_solve(const bench_solver *solver, const bench_run *run,
                             bench_result *out)
{
    (void)solver;
    return cvode_solve(CV_ADAMS, run, out);
}

/* ------------------------------------------------------------------------
** ARKODE ERKStep, Dormand-Prince 5(4)
*/

static int arkode_dp5_solve(const bench_solver *solver, const bench_run *run,
                            bench_result *out)
{
    (void)solver;
    const bench_case *bc = run->bc;
    int n = bc->dae.n, flag = -1;
    sunrealtype t_reached = bc->t0;
    void *mem = NULL;
    N_Vector y = N_VNew_Serial(n, sun_ctx);
    if (!y)
        goto done;
    for (int i = 0; i < n; i++)
        NV_Ith_S(y, i) = bc->y0[i];
    mem = ERKStepCreate(rhs_adapter, bc->t0, y, sun_ctx);
    if (!mem)
        goto done;
    SUN_CALL(ERKStepSetTableNum(mem, ARKODE_DORMAND_PRINCE_7_4_5));
    SUN_CALL(ERKStepSStolerances(mem, run->rtol, run->atol));
    SUN_CALL(ERKStepSetUserData(mem, (void *)bc));
    SUN_CALL(ERKStepSetMaxNumSteps(mem, BENCH_STEP_LIMIT));
    SUN_CALL(ERKStepSetStopTime(mem, bc->t_end));
    SUN_CALL(ERKStepEvolve(mem, bc->t_end, y, &t_reached, ARK_NORMAL));
done:
    if (out) {
        store_outcome(bc, flag, t_reached, y, "ARKODE", out);
        if (mem) {
            long count = 0;
            ERKStepGetNumSteps(mem, &count);
            out->n_steps = count;
            ERKStepGetNumRhsEvals(mem, &count);
            out->n_f_evals = count;
            ERKStepGetNumErrTestFails(mem, &count);
            out->n_err_fails = count;
        }
    }
    if (mem)
        ERKStepFree(&mem);
    if (y)
        N_VDestroy(y);
    return flag >= 0 && t_reached == bc->t_end;
}

const bench_solver bench_ida = {"IDA", ida_solve, NULL};
const bench_solver bench_cvode_bdf = {"CVODE-BDF", cvode_bdf_solve, NULL};
const bench_solver bench_cvode_adams = {"CVODE-Adams", cvode_adams_solve, NULL};
const bench_solver bench_arkode_dp5 = {"ARKODE-DP5", arkode_dp5_solve, NULL};
