/*
** hydae on the sparse benchmark's problems (see sparse_hydae.h): through
** an integrator's descriptor with hy_dae.pattern and hy_dae.jac_matrix,
** and through the public API with the Brusselator example.
*/
#define _POSIX_C_SOURCE 200809L

#include "sparse_hydae.h"

#include "examples.h"
#include "hydae.h"
#include "linalg/linsol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

double sp_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------
** Through the integrator's descriptor
*/

typedef struct ops_ctx {
    const sp_problem *p;
    const hy_pattern *pattern;
    int same_order;             /* the hy_pattern's entries are p's, in p's order */
    double *values;             /* nnz scratch for df/dy */
} ops_ctx;

static int ops_rhs(double t, const double *y, double *ydot, void *ctx)
{
    const ops_ctx *c = ctx;
    return c->p->rhs(t, y, ydot, c->p->ctx);
}

/* F = y' - f(t, y) */
static int ops_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    const ops_ctx *c = ctx;
    int status = c->p->rhs(t, y, res, c->p->ctx);
    if (status != 0)
        return status;
    for (size_t i = 0; i < c->p->n; i++)
        res[i] = yp[i] - res[i];
    return 0;
}

/* J = dF/dy + cj dF/dy' = cj I - df/dy in the solver's storage. */
static int ops_jac_matrix(double t, double cj, const double *y, const double *yp,
                          struct hy_matrix *jac, void *ctx)
{
    (void)yp;
    const ops_ctx *c = ctx;
    const sp_problem *p = c->p;
    if (jac->kind == HY_MAT_CSC && c->same_order) {
        int status = p->dfdy(t, y, jac->values, p->ctx);
        if (status != 0)
            return status;
        for (size_t k = 0; k < p->nnz; k++)
            jac->values[k] = -jac->values[k];
        for (size_t j = 0; j < p->n; j++)
            jac->values[p->diag[j]] += cj;
        return 0;
    }
    int status = p->dfdy(t, y, c->values, p->ctx);
    if (status != 0)
        return status;
    hy_matrix_zero(jac);
    for (size_t j = 0; j < p->n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            double *at = hy_matrix_at(jac, (size_t)p->row[k], j);
            if (at)
                *at = -c->values[k];
        }
    for (size_t j = 0; j < p->n; j++)
        *hy_matrix_at(jac, j, j) += cj;
    return 0;
}

static int ls_kind_of(const char *name)
{
    static const char *const names[] = {"auto", "dense", "band", "klu"};
    for (int k = 0; k < 4; k++)
        if (strcasecmp(name, names[k]) == 0)
            return k; /* HY_LS_AUTO, HY_LS_DENSE, HY_LS_BAND, HY_LS_KLU */
    return -1;
}

int sp_hydae_ops_solve(const hy_integrator_ops *ops, const sp_problem *p,
                       const char *linear_solver, double rtol, double atol, double *y_out,
                       sp_counters *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->n_nl_iters = out->n_err_fails = out->n_conv_fails = -1;
    int kind = ls_kind_of(linear_solver);
    if (kind < 0) {
        snprintf(why, why_size, "unknown linear solver %s", linear_solver);
        return HYDAE_ERR_ARG;
    }
    size_t bad = 0;
    hy_pattern *pattern = hy_pattern_create(p->n, p->col_start, p->row, &bad);
    ops_ctx c = {p, pattern, 0, malloc(p->nnz * sizeof(double))};
    double *yp0 = malloc(p->n * sizeof(double));
    void *mem = ops->create((int)p->n);
    int rc = HYDAE_ERR_NOMEM;
    snprintf(why, why_size, "out of memory");
    if (!pattern || !c.values || !yp0 || !mem)
        goto done;
    c.same_order = pattern->nnz == p->nnz
                   && memcmp(pattern->col_start, p->col_start, (p->n + 1) * sizeof(int64_t)) == 0
                   && memcmp(pattern->row, p->row, p->nnz * sizeof(int64_t)) == 0;
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = (int)p->n;
    dae.res = ops_res;
    dae.rhs = ops_rhs;
    dae.ctx = &c;
    dae.pattern = pattern;
    dae.jac_matrix = ops_jac_matrix;
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = atol;
    opt.linear_solver = kind;
    p->rhs(p->t0, p->y0, yp0, p->ctx);
    rc = ops->init(mem, &dae, p->t0, p->y0, yp0, &opt);
    double t = p->t0;
    while (rc == HYDAE_OK && t != p->t_end)
        rc = ops->step(mem, p->t_end, &t);
    if (rc >= 0 && t == p->t_end)
        rc = ops->dense(mem, p->t_end, y_out, NULL) == 0 ? 0 : HYDAE_ERR_ARG;
    if (rc == 0)
        why[0] = '\0';
    else
        snprintf(why, why_size, "%s: code %d at t = %.17g", ops->name, rc, t);
    hy_stats st;
    memset(&st, 0, sizeof st);
    ops->get_stats(mem, &st);
    out->n_steps = st.n_steps;
    out->n_f_evals = st.n_res_evals;
    out->n_jac_evals = st.n_jac_evals;
    out->n_lu = st.n_lu;
    out->n_nl_iters = st.n_newton_iters;
    out->n_err_fails = st.n_err_fails;
    out->n_conv_fails = st.n_conv_fails;
    out->n_rejected = st.n_err_fails + st.n_conv_fails;
done:
    if (mem)
        ops->destroy(mem);
    free(yp0);
    free(c.values);
    hy_pattern_unref(pattern);
    return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------
** Through the public API
*/

typedef struct last_row {
    size_t n;
    double *y;
    double t;
} last_row;

static int keep_last(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    last_row *r = user;
    r->t = t;
    memcpy(r->y, values, r->n * sizeof(double));
    return 0;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int sp_hydae_brusselator_solve(long m, const char *integrator, const char *linear_solver,
                               double rtol, double atol, double *y_out, sp_counters *out,
                               sp_phases *phases, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    memset(phases, 0, sizeof *phases);
    out->n_nl_iters = out->n_err_fails = out->n_conv_fails = -1;
    double start = sp_cpu_seconds();
    hydae_model *model = example_brusselator_sized(m, 1);
    phases->cpu_build = sp_cpu_seconds() - start;
    phases->rss_build_kb = peak_rss_kb();
    if (!model) {
        snprintf(why, why_size, "example_brusselator_sized(%ld) failed", m);
        return HYDAE_ERR_NOMEM;
    }
    start = sp_cpu_seconds();
    int status = HYDAE_ERR_NOMEM;
    hydae_sim *sim = hydae_sim_create(model, &status);
    phases->rss_create_kb = peak_rss_kb();
    last_row row = {2 * (size_t)m, y_out, NAN};
    if (!sim) {
        snprintf(why, why_size, "hydae_sim_create: %s", hydae_model_errmsg(model));
        hydae_model_free(model);
        return status;
    }
    /* The results are columns after time: u1, v1, u2, ... as declared. */
    if (hydae_model_n_columns(model) != 2 * m) {
        snprintf(why, why_size, "%d result columns, expected %ld", hydae_model_n_columns(model),
                 2 * m);
        status = HYDAE_ERR_ARG;
    } else {
        status = hydae_sim_set_time(sim, 0.0, 10.0);
        if (!status)
            status = hydae_sim_set_output_interval(sim, 10.0);
        if (!status)
            status = hydae_sim_set_tolerances(sim, rtol, atol);
        if (!status)
            status = hydae_sim_set_integrator(sim, integrator);
        if (!status)
            status = hydae_sim_set_option(sim, "linear_solver", linear_solver);
        if (!status)
            status = hydae_sim_add_row_sink(sim, keep_last, &row);
        if (!status)
            status = hydae_sim_run(sim);
        if (!status && row.t != 10.0) {
            snprintf(why, why_size, "last row at t = %.17g", row.t);
            status = HYDAE_ERR_ARG;
        } else if (status) {
            snprintf(why, why_size, "%s", hydae_sim_errmsg(sim));
        } else {
            why[0] = '\0';
        }
    }
    hydae_stats st;
    hydae_sim_get_stats(sim, &st);
    out->n_steps = st.n_steps;
    out->n_f_evals = st.n_res_evals;
    out->n_jac_evals = st.n_jac_evals;
    out->n_lu = st.n_lu;
    out->n_rejected = st.n_rejected;
    hydae_sim_free(sim);
    phases->cpu_solve = sp_cpu_seconds() - start;
    hydae_model_free(model);
    return status;
}
