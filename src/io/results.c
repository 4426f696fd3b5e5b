/*
** The in-memory result table and the recorder that fills it from a run.
*/
#include "results.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hy_results_init(hy_results *r)
{
    memset(r, 0, sizeof *r);
}

static void free_var(hy_result_var *var)
{
    hy_free(var->name);
    hy_free(var->description);
    hy_free(var->unit);
    for (int k = 0; k < var->n_labels; k++)
        hy_free(var->labels[k]);
    hy_free(var->labels);
    hy_strmap_free(&var->label_index);
}

void hy_results_free(hy_results *r)
{
    for (int i = 0; i < r->n_vars; i++)
        free_var(&r->vars[i]);
    hy_free(r->vars);
    hy_free(r->title);
    hy_free(r->t);
    hy_free(r->kind);
    hy_free(r->values);
    memset(r, 0, sizeof *r);
}

void hy_results_clear_rows(hy_results *r)
{
    r->n_rows = 0;
    for (int i = 0; i < r->n_vars; i++)
        r->vars[i].varies = 0;
    r->stopped_early = 0;
    r->t_stopped = NAN;
    r->stop_message[0] = '\0';
}

int hy_results_set_title(hy_results *r, const char *title)
{
    char *copy = hy_strdup(title);
    if (!copy)
        return HYDAE_ERR_NOMEM;
    hy_free(r->title);
    r->title = copy;
    return 0;
}

int hy_results_add_var(hy_results *r, const char *name, const char *description, int is_param,
                       int is_mode)
{
    if (r->n_rows > 0)
        return HYDAE_ERR_ARG; /* columns come before rows */
    if (hy_reserve((void **)&r->vars, &r->cap_vars, r->n_vars + 1, sizeof(hy_result_var)))
        return HYDAE_ERR_NOMEM;
    hy_result_var *var = &r->vars[r->n_vars];
    memset(var, 0, sizeof *var);
    var->name = hy_strdup(name);
    var->description = hy_strdup(description ? description : "");
    var->unit = hy_strdup("");
    if (!var->name || !var->description || !var->unit) {
        free_var(var);
        return HYDAE_ERR_NOMEM;
    }
    var->is_param = is_param;
    var->is_mode = is_mode;
    return r->n_vars++;
}

int hy_results_set_unit(hy_results *r, int var, const char *unit)
{
    char *copy = hy_strdup(unit);
    if (!copy)
        return HYDAE_ERR_NOMEM;
    hy_free(r->vars[var].unit);
    r->vars[var].unit = copy;
    return 0;
}

int hy_results_label(hy_results *r, int var_index, const char *label)
{
    hy_result_var *var = &r->vars[var_index];
    int known = hy_strmap_get(&var->label_index, label);
    if (known >= 0)
        return known;
    if (hy_reserve((void **)&var->labels, &var->cap_labels, var->n_labels + 1, sizeof(char *)))
        return HYDAE_ERR_NOMEM;
    char *copy = hy_strdup(label);
    if (!copy)
        return HYDAE_ERR_NOMEM;
    /* The map borrows the copy, which lives as long as labels. */
    if (hy_strmap_put(&var->label_index, copy, var->n_labels)) {
        hy_free(copy);
        return HYDAE_ERR_NOMEM;
    }
    var->labels[var->n_labels] = copy;
    return var->n_labels++;
}

/* Room for one more row. */
static int grow_rows(hy_results *r)
{
    if (r->n_rows < r->cap_rows)
        return 0;
    long cap = r->cap_rows > 0 ? 2 * r->cap_rows : 1024;
    size_t width = (size_t)(r->n_vars > 0 ? r->n_vars : 1);
    if ((size_t)cap > (size_t)-1 / sizeof(double) / width)
        return HYDAE_ERR_NOMEM;
    double *t = hy_realloc(r->t, sizeof(double) * (size_t)cap);
    if (!t)
        return HYDAE_ERR_NOMEM;
    r->t = t;
    unsigned char *kind = hy_realloc(r->kind, (size_t)cap);
    if (!kind)
        return HYDAE_ERR_NOMEM;
    r->kind = kind;
    double *values = hy_realloc(r->values, sizeof(double) * (size_t)cap * width);
    if (!values)
        return HYDAE_ERR_NOMEM;
    r->values = values;
    r->cap_rows = cap;
    return 0;
}

int hy_results_append(hy_results *r, hydae_row_kind kind, double t, const double *values)
{
    if (grow_rows(r))
        return HYDAE_ERR_NOMEM;
    r->t[r->n_rows] = t;
    r->kind[r->n_rows] = (unsigned char)kind;
    for (int i = 0; r->n_rows > 0 && i < r->n_vars; i++) {
        double first = r->values[i];
        if (!(values[i] == first) && !(isnan(values[i]) && isnan(first)))
            r->vars[i].varies = 1;
    }
    if (r->n_vars > 0)
        memcpy(r->values + r->n_rows * r->n_vars, values, sizeof(double) * (size_t)r->n_vars);
    r->n_rows++;
    return 0;
}

void hy_results_set_stop(hy_results *r, double t, const char *message)
{
    hy_format(r->stop_message, sizeof r->stop_message, "%s", message ? message : "");
    r->stopped_early = 1;
    r->t_stopped = t;
}

int hy_results_find(const hy_results *r, const char *name)
{
    for (int i = 0; i < r->n_vars; i++)
        if (strcmp(r->vars[i].name, name) == 0)
            return i;
    return -1;
}

/* Left and right limits from repeated times. */
void hy_results_infer_kinds(hy_results *r)
{
    for (long k = 0; k < r->n_rows;) {
        long run = 1;
        while (k + run < r->n_rows && r->t[k + run] == r->t[k])
            run++;
        for (long i = 0; i < run; i++)
            r->kind[k + i] = (unsigned char)(run < 2 ? HYDAE_ROW_GRID
                                             : i == 0 ? HYDAE_ROW_EVENT_LEFT
                                             : i == 1 ? HYDAE_ROW_EVENT_RIGHT
                                                      : HYDAE_ROW_GRID);
        k += run;
    }
}

/* ---- filled by a run ---- */

void hy_recorder_init(hy_recorder *rec, const hydae_sim *s)
{
    hy_columns_init(&rec->cols, s);
    hy_results_init(&rec->res);
    rec->row = NULL;
}

void hy_recorder_free(hy_recorder *rec)
{
    hy_columns_free(&rec->cols);
    hy_results_free(&rec->res);
    hy_free(rec->row);
    rec->row = NULL;
}

int hy_recorder_prepare(hy_recorder *rec)
{
    const hy_columns *cols = &rec->cols;
    if (hy_results_set_title(&rec->res, hy_sim_model(cols->sim)->name))
        return HYDAE_ERR_NOMEM;
    rec->row = hy_malloc(sizeof(double) * (size_t)(cols->n > 0 ? cols->n : 1));
    if (!rec->row)
        return HYDAE_ERR_NOMEM;
    for (int i = 0; i < cols->n; i++) {
        const hy_column *column = &cols->items[i];
        char description[512];
        hy_columns_describe(cols, i, description, sizeof description);
        int var = hy_results_add_var(&rec->res, column->name, description,
                                     column->kind == HY_COLUMN_PARAM,
                                     column->kind == HY_COLUMN_MODE);
        if (var < 0)
            return var;
        if (hy_results_set_unit(&rec->res, var, hy_columns_unit(cols, i)))
            return HYDAE_ERR_NOMEM;
        for (int k = 0; k < hy_columns_n_modes(cols, i); k++)
            if (hy_results_label(&rec->res, var, hy_columns_mode_name(cols, i, k)) != k)
                return HYDAE_ERR_NOMEM;
    }
    return 0;
}

int hy_recorder_begin(hy_recorder *rec)
{
    hy_results_clear_rows(&rec->res);
    hy_columns_begin(&rec->cols);
    return 0;
}

int hy_recorder_row(hy_recorder *rec, hydae_row_kind kind, double t, const double *values)
{
    hy_columns_extract(&rec->cols, kind, values, rec->row);
    return hy_results_append(&rec->res, kind, t, rec->row) ? HYDAE_ERR_NOMEM : 0;
}

void hy_recorder_finish(hy_recorder *rec, int status, double t, const char *message)
{
    if (status != 0)
        hy_results_set_stop(&rec->res, t, message);
}
