/*
** Result columns chosen by name: result columns, parameters and the
** active mode of a chart, resolved against the sim's model; and the
** conversion of an engine row to the chosen columns.
*/
#include "columns.h"
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hy_columns_init(hy_columns *cols, const hydae_sim *s)
{
    memset(cols, 0, sizeof *cols);
    cols->sim = s;
}

void hy_columns_free(hy_columns *cols)
{
    for (int i = 0; i < cols->n; i++)
        if (cols->items[i].kind == HY_COLUMN_MODE)
            hy_free(cols->mode_name[cols->items[i].index]);
    hy_free(cols->mode_name);
    hy_free(cols->items);
    hy_free(cols->last);
    for (int k = 0; k < 3; k++)
        hy_free(cols->position[k]);
    memset(cols, 0, sizeof *cols);
}

static const hydae_model *model_of(const hy_columns *cols)
{
    return hy_sim_model(cols->sim);
}

/* Indices a kind has: result columns, parameters, charts. */
static int kind_count(const hy_columns *cols, hy_column_kind kind)
{
    const hydae_model *m = model_of(cols);
    return kind == HY_COLUMN_RESULT ? m->n_columns
           : kind == HY_COLUMN_PARAM ? m->n_globals
                                     : m->n_charts;
}

static int find_column(const hy_columns *cols, hy_column_kind kind, int index)
{
    return cols->position[kind] && index < cols->n_index[kind] ? cols->position[kind][index]
                                                                : -1;
}

/* The column's name: the model's own (it outlives the sim, and a model of
** millions of variables has as many columns: no copy each), or
** "mode(CHART)", made here. */
static const char *column_name(hy_columns *cols, hy_column_kind kind, int index)
{
    const hydae_model *m = model_of(cols);
    if (kind == HY_COLUMN_RESULT)
        return hydae_model_column_name(m, index);
    if (kind == HY_COLUMN_PARAM)
        return m->globals[index].name;
    if (!cols->mode_name && !(cols->mode_name = hy_calloc((size_t)m->n_charts,
                                                          sizeof *cols->mode_name)))
        return NULL;
    const char *chart = m->charts[index]->name;
    size_t size = strlen(chart) + sizeof "mode()";
    char *name = hy_malloc(size);
    if (name)
        snprintf(name, size, "mode(%s)", chart);
    cols->mode_name[index] = name;
    return name;
}

/* Position of the column (kind, index), appending it if new. */
static int add_column(hy_columns *cols, hy_column_kind kind, int index)
{
    int found = find_column(cols, kind, index);
    if (found >= 0)
        return found;
    if (!cols->position[kind]) {
        int count = kind_count(cols, kind);
        cols->position[kind] = hy_malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
        if (!cols->position[kind])
            return HYDAE_ERR_NOMEM;
        for (int i = 0; i < count; i++)
            cols->position[kind][i] = -1;
        cols->n_index[kind] = count;
    }
    int old_cap = cols->cap;
    if (hy_reserve((void **)&cols->items, &cols->cap, cols->n + 1, sizeof(hy_column)))
        return HYDAE_ERR_NOMEM;
    if (cols->cap != old_cap || !cols->last) {
        double *last = hy_realloc(cols->last, sizeof(double) * (size_t)(cols->cap > 0 ? cols->cap : 1));
        if (!last)
            return HYDAE_ERR_NOMEM;
        cols->last = last;
    }
    const char *name = column_name(cols, kind, index);
    if (!name)
        return HYDAE_ERR_NOMEM;
    hy_column *column = &cols->items[cols->n];
    column->kind = kind;
    column->index = index;
    column->name = name;
    cols->last[cols->n] = NAN;
    cols->position[kind][index] = cols->n;
    return cols->n++;
}

/* The names one may choose from, for an error message. */
static void list_names(const hydae_model *m, char *buf, size_t size)
{
    size_t used = 0;
#define HY_APPEND_(...)                                                       \
    do {                                                                      \
        if (used < size)                                                      \
            used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__);  \
    } while (0)
    HY_APPEND_("results:");
    for (int c = 0; c < m->n_columns; c++)
        HY_APPEND_(" %s", hydae_model_column_name(m, c));
    int n_params = 0;
    for (int g = 0; g < m->n_globals; g++)
        if (!m->globals[g].is_discrete)
            HY_APPEND_("%s %s", n_params++ ? "" : "; parameters:", m->globals[g].name);
    HY_APPEND_("; modes:");
    for (int c = 0; c < m->n_charts; c++)
        HY_APPEND_(" mode(%s)", m->charts[c]->name);
#undef HY_APPEND_
}

int hy_columns_add_name(hy_columns *cols, hydae_sim *s, const char *name)
{
    const hydae_model *m = model_of(cols);
    for (int c = 0; c < m->n_columns; c++)
        if (strcmp(hydae_model_column_name(m, c), name) == 0)
            return add_column(cols, HY_COLUMN_RESULT, c);
    for (int g = 0; g < m->n_globals; g++)
        if (!m->globals[g].is_discrete && strcmp(m->globals[g].name, name) == 0)
            return add_column(cols, HY_COLUMN_PARAM, g);
    size_t len = strlen(name);
    if (len > 6 && strncmp(name, "mode(", 5) == 0 && name[len - 1] == ')')
        for (int c = 0; c < m->n_charts; c++) {
            const char *chart = m->charts[c]->name;
            if (strlen(chart) == len - 6 && strncmp(name + 5, chart, len - 6) == 0)
                return add_column(cols, HY_COLUMN_MODE, c);
        }
    char names[700];
    list_names(m, names, sizeof names);
    hy_sim_fail(s, "no result, parameter or mode named '%s' (%s)", name, names);
    return HYDAE_ERR_ARG;
}

int hy_columns_add_list(hy_columns *cols, hydae_sim *s, const char *list)
{
    const char *start = list;
    for (;;) {
        const char *end = strchr(start, ',');
        if (!end)
            end = start + strlen(start);
        while (start < end && *start == ' ')
            start++;
        const char *stop = end;
        while (stop > start && stop[-1] == ' ')
            stop--;
        size_t len = (size_t)(stop - start);
        char name[256];
        if (len == 0 || len >= sizeof name) {
            hy_sim_fail(s, "%s name in the list '%s'", len ? "too long a" : "an empty", list);
            return HYDAE_ERR_ARG;
        }
        memcpy(name, start, len);
        name[len] = '\0';
        if (strcmp(name, "time") != 0) {
            int status = hy_columns_add_name(cols, s, name);
            if (status < 0)
                return status;
        }
        if (*end == '\0')
            return 0;
        start = end + 1;
    }
}

int hy_columns_add_results(hy_columns *cols)
{
    for (int c = 0; c < model_of(cols)->n_columns; c++)
        if (add_column(cols, HY_COLUMN_RESULT, c) < 0)
            return HYDAE_ERR_NOMEM;
    return 0;
}

int hy_columns_add_params(hy_columns *cols)
{
    const hydae_model *m = model_of(cols);
    for (int g = 0; g < m->n_globals; g++)
        if (!m->globals[g].is_discrete && add_column(cols, HY_COLUMN_PARAM, g) < 0)
            return HYDAE_ERR_NOMEM;
    return 0;
}

int hy_columns_add_modes(hy_columns *cols)
{
    for (int c = 0; c < model_of(cols)->n_charts; c++)
        if (add_column(cols, HY_COLUMN_MODE, c) < 0)
            return HYDAE_ERR_NOMEM;
    return 0;
}

/* The value of a parameter or mode column as the sim holds it now. */
static double current_value(const hy_columns *cols, const hy_column *column)
{
    const hydae_sim *s = cols->sim;
    if (column->kind == HY_COLUMN_PARAM)
        return hy_sim_values(s)[column->index];
    const hydae_mode *active = hy_sim_active_mode(s, column->index);
    return active ? (double)active->index : NAN;
}

void hy_columns_begin(hy_columns *cols)
{
    for (int i = 0; i < cols->n; i++)
        cols->last[i] = cols->items[i].kind == HY_COLUMN_RESULT
                            ? NAN
                            : current_value(cols, &cols->items[i]);
}

void hy_columns_extract(hy_columns *cols, hydae_row_kind kind, const double *values,
                        double *out)
{
    for (int i = 0; i < cols->n; i++) {
        const hy_column *column = &cols->items[i];
        if (column->kind == HY_COLUMN_RESULT)
            out[i] = values[column->index];
        else if (kind == HYDAE_ROW_EVENT_LEFT)
            out[i] = cols->last[i]; /* parameters and modes change only at events */
        else
            out[i] = current_value(cols, column);
        cols->last[i] = out[i];
    }
}

int hy_columns_n_modes(const hy_columns *cols, int i)
{
    const hy_column *column = &cols->items[i];
    return column->kind == HY_COLUMN_MODE ? model_of(cols)->charts[column->index]->n_modes : 0;
}

const char *hy_columns_mode_name(const hy_columns *cols, int i, int k)
{
    const hy_column *column = &cols->items[i];
    if (column->kind != HY_COLUMN_MODE)
        return NULL;
    const hydae_chart *chart = model_of(cols)->charts[column->index];
    return k >= 0 && k < chart->n_modes ? chart->modes[k]->name : NULL;
}

/* "variable in free; output in bound": the modes that give a result
** column its value. */
static void describe_result(const hydae_model *m, int column, char *buf, size_t size)
{
    int slot = m->column_slot[column];
    if (slot < m->n_globals) {
        hy_format(buf, size, "discrete variable");
        return;
    }
    static const char *const role_names[2] = { "variable in", "output in" };
    size_t used = 0;
    buf[0] = '\0';
    for (int role = 0; role < 2; role++) {
        int n_found = 0;
        for (int c = 0; c < m->n_charts; c++)
            for (int k = 0; k < m->charts[c]->n_modes; k++) {
                const hydae_mode *mode = m->charts[c]->modes[k];
                const hy_var *vars = role == 0 ? mode->vars : mode->out_vars;
                int n_vars = role == 0 ? mode->n_vars : mode->n_outputs;
                for (int v = 0; v < n_vars && used < size; v++) {
                    if (vars[v].slot != slot)
                        continue;
                    if (n_found++ == 0)
                        used += (size_t)snprintf(buf + used, size - used, "%s%s %s",
                                                 used ? "; " : "", role_names[role],
                                                 mode->name);
                    else
                        used += (size_t)snprintf(buf + used, size - used, ", %s", mode->name);
                }
            }
    }
}

const char *hy_columns_unit(const hy_columns *cols, int i)
{
    const hy_column *column = &cols->items[i];
    const hydae_model *m = model_of(cols);
    if (column->kind == HY_COLUMN_RESULT)
        return hydae_model_column_unit(m, column->index);
    if (column->kind == HY_COLUMN_PARAM)
        return hy_model_global_unit(m, column->index);
    return "";
}

/* What a column is: the description given to it, else its role. */
static void describe_column(const hy_columns *cols, int i, char *buf, size_t size)
{
    const hy_column *column = &cols->items[i];
    const hydae_model *m = model_of(cols);
    const char *given = column->kind == HY_COLUMN_RESULT
                            ? hydae_model_column_description(m, column->index)
                        : column->kind == HY_COLUMN_PARAM
                            ? hy_model_global_description(m, column->index)
                            : "";
    if (given[0]) {
        hy_format(buf, size, "%s", given);
    } else if (column->kind == HY_COLUMN_PARAM) {
        hy_format(buf, size, "parameter");
    } else if (column->kind == HY_COLUMN_RESULT) {
        describe_result(m, column->index, buf, size);
    } else {
        const hydae_chart *chart = m->charts[column->index];
        size_t used = (size_t)snprintf(buf, size, "active mode of chart '%s':", chart->name);
        for (int k = 0; k < chart->n_modes && used < size; k++)
            used += (size_t)snprintf(buf + used, size - used, "%s %d %s", k ? "," : "", k + 1,
                                     chart->modes[k]->name);
    }
}

void hy_columns_describe(const hy_columns *cols, int i, char *buf, size_t size)
{
    describe_column(cols, i, buf, size);
    const char *unit = hy_columns_unit(cols, i);
    size_t used = strlen(buf);
    if (unit[0] && used + 1 < size)
        snprintf(buf + used, size - used, "%s[%s]", used ? " " : "", unit);
}

int hydae_sim_check_vars(hydae_sim *s, const char *vars)
{
    if (!s || !vars)
        return HYDAE_ERR_ARG;
    hy_columns cols;
    hy_columns_init(&cols, s);
    int status = hy_columns_add_list(&cols, s, vars);
    hy_columns_free(&cols);
    return hy_sink_status(s, status, "the list of names");
}

int hy_sink_status(hydae_sim *s, int status, const char *what)
{
    if (status == HYDAE_ERR_NOMEM)
        hy_sim_fail(s, "out of memory adding %s", what);
    return status;
}
