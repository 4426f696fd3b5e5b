/*
** Units and descriptions of variables, outputs, parameters and discrete
** variables (hydae_mode_set_var_info and the like), and of result columns:
** a column's unit is the first one given to its name in declaration order
** (parameters and discrete variables, then charts, modes, variables before
** outputs), its description likewise.
*/
#include "model.h"

#include <string.h>

/* A copy in the name arena of a non-empty text, NULL for NULL or "". */
static int copy_text(hydae_model *m, const char *text, const char **copy)
{
    *copy = NULL;
    if (!text || !text[0])
        return 0;
    *copy = hy_names_copy(&m->var_names, text);
    return *copy ? 0 : -1;
}

static int add_info(hydae_model *m, const hydae_mode *mode, int index, int is_output,
                    const char *unit, const char *description, const char *what)
{
    if (m->checked)
        return HY_ARG_ERROR(m, "cannot set the unit of %s: the model is already in use", what);
    hy_var_info info = { mode, index, is_output, NULL, NULL };
    if (copy_text(m, unit, &info.unit) || copy_text(m, description, &info.description)
        || hy_reserve((void **)&m->infos, &m->cap_infos, m->n_infos + 1, sizeof info))
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory setting the unit of %s", what);
    m->infos[m->n_infos++] = info;
    return 0;
}

int hydae_mode_set_var_info(hydae_mode *mode, int var, const char *unit, const char *description)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (var < 0 || var >= mode->n_vars)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no variable number %d for a unit",
                            mode->name, var);
    return add_info(MODE_MODEL(mode), mode, var, 0, unit, description, mode->vars[var].name);
}

int hydae_mode_set_output_info(hydae_mode *mode, int output, const char *unit,
                               const char *description)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (output < 0 || output >= mode->n_outputs)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no output number %d for a unit",
                            mode->name, output);
    return add_info(MODE_MODEL(mode), mode, output, 1, unit, description,
                    mode->out_vars[output].name);
}

int hydae_model_set_global_info(hydae_model *m, int index, const char *unit,
                                const char *description)
{
    if (!m)
        return HYDAE_ERR_ARG;
    if (index < 0 || index >= m->n_globals)
        return HY_ARG_ERROR(m, "no parameter or discrete variable number %d for a unit", index);
    return add_info(m, NULL, index, 0, unit, description, m->globals[index].name);
}

static int info_slot(const hy_var_info *info)
{
    if (!info->mode)
        return info->index;
    return (info->is_output ? info->mode->out_vars : info->mode->vars)[info->index].slot;
}

/* The order in which infos count: globals, then by chart, mode, variables
** before outputs, index. */
static int comes_before(const hydae_model *m, const hy_var_info *a, const hy_var_info *b)
{
    (void)m;
    if (!a->mode || !b->mode)
        return !a->mode && (b->mode || a->index < b->index);
    if (a->mode != b->mode) {
        if (a->mode->chart != b->mode->chart)
            return a->mode->chart->index < b->mode->chart->index;
        return a->mode->index < b->mode->index;
    }
    if (a->is_output != b->is_output)
        return !a->is_output;
    return a->index < b->index;
}

void hy_model_free_infos(hydae_model *m)
{
    hy_free(m->infos);
    hy_free(m->slot_info);
    hy_free(m->slot_description);
    m->infos = NULL;
    m->slot_info = m->slot_description = NULL;
    m->n_infos = m->cap_infos = 0;
}

int hy_model_index_infos(hydae_model *m)
{
    hy_free(m->slot_info);
    hy_free(m->slot_description);
    size_t n = (size_t)(m->n_slots > 0 ? m->n_slots : 1);
    m->slot_info = hy_malloc(sizeof(int) * n);
    m->slot_description = hy_malloc(sizeof(int) * n);
    if (!m->slot_info || !m->slot_description)
        return HYDAE_ERR_NOMEM;
    for (int i = 0; i < m->n_slots; i++)
        m->slot_info[i] = m->slot_description[i] = -1;
    for (int k = 0; k < m->n_infos; k++) {
        const hy_var_info *info = &m->infos[k];
        int slot = info_slot(info);
        int *unit_of = &m->slot_info[slot], *description_of = &m->slot_description[slot];
        if (info->unit && (*unit_of < 0 || comes_before(m, info, &m->infos[*unit_of])))
            *unit_of = k;
        if (info->description
            && (*description_of < 0 || comes_before(m, info, &m->infos[*description_of])))
            *description_of = k;
    }
    return 0;
}

static int column_slot(const hydae_model *m, int column)
{
    return m && m->checked && column >= 0 && column < m->n_columns ? m->column_slot[column] : -1;
}

const char *hydae_model_column_unit(const hydae_model *m, int column)
{
    int slot = column_slot(m, column);
    return slot >= 0 && m->slot_info[slot] >= 0 ? m->infos[m->slot_info[slot]].unit : "";
}

const char *hydae_model_column_description(const hydae_model *m, int column)
{
    int slot = column_slot(m, column);
    return slot >= 0 && m->slot_description[slot] >= 0
               ? m->infos[m->slot_description[slot]].description
               : "";
}

const char *hy_model_global_unit(const hydae_model *m, int global)
{
    return m->checked && m->slot_info[global] >= 0 ? m->infos[m->slot_info[global]].unit : "";
}

const char *hy_model_global_description(const hydae_model *m, int global)
{
    return m->checked && m->slot_description[global] >= 0
               ? m->infos[m->slot_description[global]].description
               : "";
}
