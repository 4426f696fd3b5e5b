/*
** The FMU's variables of a compiled model and the GUID of its text: what
** the packer and the runtime must agree on (export.h).
*/
#include "export.h"

#include "model/model.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int is_structural(const hydae_model *m, const char *name)
{
    for (int i = 0; i < m->n_structural; i++)
        if (strcmp(m->structural[i], name) == 0)
            return 1;
    return 0;
}

static int n_params(const hydae_model *m)
{
    int n = 0;
    for (int i = 0; i < m->n_globals; i++)
        n += !m->globals[i].is_discrete;
    return n;
}

int hy_export_n_vars(const hydae_model *m)
{
    return n_params(m) + m->n_columns + m->n_charts + 1;
}

uint32_t hy_export_vr_limit(const hydae_model *m)
{
    return (uint32_t)(m->n_slots + m->n_charts + 1);
}

void hy_export_var_at(const hydae_model *m, int i, hy_export_var *v)
{
    memset(v, 0, sizeof *v);
    int n_p = n_params(m);
    if (i < n_p) {
        int g = 0;
        for (int k = -1; g < m->n_globals; g++)
            if (!m->globals[g].is_discrete && ++k == i)
                break;
        v->name = m->globals[g].name;
        v->kind = is_structural(m, v->name) ? HY_EXPORT_CONSTANT : HY_EXPORT_PARAMETER;
        v->vr = (uint32_t)g;
        v->index = g;
        v->start = m->globals[g].value;
        return;
    }
    i -= n_p;
    if (i < m->n_columns) {
        int slot = m->column_slot[i];
        v->kind = HY_EXPORT_OUTPUT;
        v->name = m->slot_names[slot];
        v->vr = (uint32_t)slot;
        v->index = i;
        v->is_discrete = slot < m->n_globals;
        if (v->is_discrete && m->globals[slot].is_input) { /* `input Real u` */
            v->kind = HY_EXPORT_INPUT;
            v->index = slot;
            v->start = m->globals[slot].value;
        }
        return;
    }
    i -= m->n_columns;
    if (i == m->n_charts) {
        v->kind = HY_EXPORT_TIME;
        v->name = "time";
        v->vr = (uint32_t)(m->n_slots + m->n_charts);
        return;
    }
    v->kind = HY_EXPORT_MODE;
    v->name = m->charts[i]->name;
    v->vr = (uint32_t)(m->n_slots + i);
    v->index = i;
    v->is_discrete = 1;
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo), from a given offset basis. */
static uint64_t fnv1a(const char *text, size_t length, uint64_t hash)
{
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char)text[i];
        hash *= 1099511628211ULL;
    }
    return hash;
}

void hy_export_guid(const char *text, size_t length, char guid[39])
{
    uint64_t a = fnv1a(text, length, 14695981039346656037ULL);
    uint64_t b = fnv1a(text, length, a ^ 0x9e3779b97f4a7c15ULL);
    snprintf(guid, 39, "{%08x-%04x-%04x-%04x-%012llx}", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffffu, (unsigned)a & 0xffffu, (unsigned)(b >> 48),
             (unsigned long long)(b & 0xffffffffffffULL));
}

void hy_export_identifier(const char *model_name, char *out, size_t size)
{
    size_t n = 0;
    if (size == 0)
        return;
    if (!isalpha((unsigned char)model_name[0]) && model_name[0] != '_' && n + 1 < size)
        out[n++] = '_';
    for (const char *c = model_name; *c && n + 1 < size; c++)
        out[n++] = isalnum((unsigned char)*c) ? *c : '_';
    out[n] = '\0';
}
