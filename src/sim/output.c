/*
** Result rows (docs/engine.md, "Results"): the output grid, the rows of
** the value store gathered by result column, and the sinks they go to
** (io/sinks.h); with the few accessors by which io/'s writers see the
** simulator.
*/
#include "sim.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

int hy_output_reserve(hy_output *out, const hydae_model *m)
{
    size_t n_cols = (size_t)(m->n_columns > 0 ? m->n_columns : 1);
    out->row = hy_malloc(sizeof(double) * n_cols);
    out->row_left = hy_malloc(sizeof(double) * n_cols);
    return out->row && out->row_left ? 0 : HYDAE_ERR_NOMEM;
}

void hy_output_free(hy_output *out)
{
    hy_sink_set_free(&out->sinks);
    hy_free(out->row);
    hy_free(out->row_left);
    out->row = out->row_left = NULL;
}

/* ---- sinks ---- */

int hy_sim_add_sink(hydae_sim *s, const hy_sink *sink)
{
    return hy_sink_set_add(&s->out.sinks, sink);
}

int hydae_sim_add_row_sink(hydae_sim *s, hydae_row_fn fn, void *user)
{
    if (!s || !fn)
        return HYDAE_ERR_ARG;
    hy_sink sink = { NULL, fn, NULL, NULL, user, 0 };
    if (hy_sim_add_sink(s, &sink)) {
        hy_sim_fail(s, "out of memory adding a row sink");
        return HYDAE_ERR_NOMEM;
    }
    return 0;
}

int hydae_sim_add_csv(hydae_sim *s, FILE *out)
{
    return hydae_sim_add_csv_vars(s, out, NULL, 0);
}

int hy_output_begin(hydae_sim *s)
{
    if (hy_sink_set_begin(&s->out.sinks, s->model)) {
        hy_sim_fail(s, "could not write the results header");
        return HYDAE_ERR_IO;
    }
    return 0;
}

int hy_output_finish(hydae_sim *s, int status)
{
    int failed = hy_sink_set_finish(&s->out.sinks, status, s->t, s->errmsg);
    if (failed && status == 0) {
        hy_sim_fail(s, "writing the results failed after the run reached t = %.17g", s->t);
        return HYDAE_ERR_IO;
    }
    return status;
}

const hydae_model *hy_sim_model(const hydae_sim *s)
{
    return s->model;
}

const double *hy_sim_values(const hydae_sim *s)
{
    return s->store;
}

const hydae_mode *hy_sim_active_mode(const hydae_sim *s, int chart)
{
    return s->active[chart];
}

void hy_sim_span(const hydae_sim *s, double *t0, double *t_end)
{
    *t0 = s->set.t0;
    *t_end = s->set.t_end;
}

/* ---- rows and the grid ---- */

int hy_output_start(hydae_sim *s)
{
    if (!isfinite(s->set.t0) || !isfinite(s->set.t_end) || !(s->set.t_end > s->set.t0)) {
        hy_sim_fail(s, "t_end (%g) must be finite and greater than t0 (%g)", s->set.t_end, s->set.t0);
        return HYDAE_ERR_ARG;
    }
    s->out.dt_grid = s->set.dt_out > 0.0 ? s->set.dt_out : (s->set.t_end - s->set.t0) / 500.0;
    double n_intervals = ceil((s->set.t_end - s->set.t0) / s->out.dt_grid - 1e-9);
    if (!(n_intervals <= 1e9)) {
        hy_sim_fail(s, "the output interval %g over [%g, %g] asks for %.3g rows; at most 1e9",
                    s->out.dt_grid, s->set.t0, s->set.t_end, n_intervals);
        return HYDAE_ERR_ARG;
    }
    s->out.n_out = n_intervals < 1.0 || s->set.output_steps ? 1 : (long)n_intervals;
    s->out.k_out = 0;
    return 0;
}

void hy_gather_row(const hydae_sim *s, double *row)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_columns; c++)
        row[c] = s->store[m->column_slot[c]];
}

int hy_send_row(hydae_sim *s, hydae_row_kind kind, double t, const double *row)
{
    int status = hy_sink_set_row(&s->out.sinks, kind, t, row);
    if (status == HYDAE_ERR_NOMEM)
        hy_sim_fail(s, "out of memory keeping the results at t = %.17g", t);
    else if (status == HYDAE_ERR_IO)
        hy_sim_fail(s, "writing the results failed at t = %.17g", t);
    else if (status)
        hy_sim_fail(s, "a result sink stopped the run at t = %.17g", t);
    return status;
}

int hy_emit_state_row(hydae_sim *s, hydae_row_kind kind, double t, const double *y,
                          const double *yp)
{
    int status = hy_store_state(s, t, y, yp);
    if (status)
        return status;
    hy_gather_row(s, s->out.row);
    return hy_send_row(s, kind, t, s->out.row);
}

double hy_grid_time(const hydae_sim *s, long k)
{
    return k >= s->out.n_out ? s->set.t_end : s->set.t0 + (double)k * s->out.dt_grid;
}

/* Grid rows with t_grid < t_limit (or <= t_limit when inclusive) from the
** last step's dense output. */
int hy_emit_grid_until(hydae_sim *s, double t_limit, int inclusive)
{
    while (s->out.k_out <= s->out.n_out) {
        double tg = hy_grid_time(s, s->out.k_out);
        if (inclusive ? tg > t_limit : tg >= t_limit)
            break;
        int status = hy_interpolate(s, tg, s->y_work, s->yp_work);
        if (status)
            return status;
        status = hy_emit_state_row(s, HYDAE_ROW_GRID, tg, s->y_work, s->yp_work);
        if (status)
            return status;
        s->out.k_out++;
    }
    return 0;
}

/* Grid rows that fall on the current time, from the current state. */
int hy_emit_grid_at_current(hydae_sim *s)
{
    while (s->out.k_out <= s->out.n_out && hy_grid_time(s, s->out.k_out) <= s->t + hy_time_tol(s->t)) {
        int status = hy_emit_state_row(s, HYDAE_ROW_GRID, s->t, s->y, s->yp);
        if (status)
            return status;
        s->out.k_out++;
    }
    return 0;
}
