/*
** Components and connections flattened into one model (flatten.h), modes:
** a component whose class has modes and transitions becomes a chart named
** by its instance path ("D1", "sub.D3"); its modes, their entry and exit
** actions, and its transitions are copied there, renamed with the
** instance's prefix (mode_map then places its declarations and
** equations). The simulated model's own modes, charts, transitions and
** experiment are copied the same way, unprefixed.
*/
#include "lang/flatten_internal.h"

#include "core/core.h"

/* ---------------------------------------------------------------- */
/* Modes, charts and transitions                                    */

/* A component class may have modes and transitions (its instances'
** charts) but no explicit chart and no experiment: said once per class. */
void flatten_refuse_component_elements(flattener *f, int cls)
{
    const hy_syntax *in = f->in;
    for (int i = 0; i < in->n_charts && !f->class_refused[cls]; i++)
        if (in->charts[i].cls == cls) {
            f->class_refused[cls] = 1;
            flatten_error_at(f, in->charts[i].line, in->charts[i].column, "chart '%s' in class "
                             "'%s', which is used as a component: a component's modes form its "
                             "own chart, named after the instance (write the modes and "
                             "transitions without 'chart')", text(f, in->charts[i].name),
                             text(f, in->classes[cls].name));
        }
    for (int i = 0; i < in->n_settings && !f->class_refused[cls]; i++)
        if (in->settings[i].cls == cls) {
            f->class_refused[cls] = 1;
            flatten_error_at(f, in->settings[i].line, in->settings[i].column, "class '%s' is "
                             "used as a component: the experiment belongs to the simulated "
                             "model", text(f, in->classes[cls].name));
        }
}

int flatten_class_has_modes(const flattener *f, int cls)
{
    for (int i = 0; i < f->in->n_modes; i++)
        if (f->in->modes[i].cls == cls)
            return 1;
    for (int i = 0; i < f->in->n_transitions; i++)
        if (f->in->transitions[i].cls == cls)
            return 1;
    return 0;
}

int flatten_add_chart(flattener *f, int name, int line, int column)
{
    hy_syntax *out = f->out;
    if (hy_grow((void **)&out->charts, &out->cap_charts, out->n_charts + 1, sizeof *out->charts))
        return flatten_nomem(f);
    hy_chart_syn *c = &out->charts[out->n_charts];
    c->name = name;
    c->line = line;
    c->column = column;
    c->cls = 0;
    return out->n_charts++;
}

/* Statements `range` of the input, copied with the prefix to the end of
** the output's list: the copy's range. */
static hy_stmt_range copy_stmts(flattener *f, hy_stmt_range range, int prefix)
{
    hy_syntax *out = f->out;
    hy_stmt_range copy = range;
    copy.first = out->n_stmts;
    copy.count = 0;
    for (int k = 0; k < range.count && !f->failed; k++) {
        hy_stmt_syn st = f->in->stmts[range.first + k];
        int n_bound = f->n_bound;
        if (flatten_bind_loops(f, st.loop))
            break;
        st.loop = flatten_map_loop(f, st.loop, prefix);
        if (!st.is_raise)
            st.target = flatten_prefixed(f, prefix, st.target); /* events keep their names */
        st.value = flatten_copy_expr(f, st.value, prefix);
        st.target_index = flatten_copy_expr(f, st.target_index, prefix);
        f->n_bound = n_bound;
        if (f->failed
            || hy_grow((void **)&out->stmts, &out->cap_stmts, out->n_stmts + 1, sizeof *out->stmts)) {
            flatten_nomem(f);
            break;
        }
        out->stmts[out->n_stmts++] = st;
        copy.count++;
    }
    return copy;
}

/* The modes and transitions of class cls (and, for the simulated model,
** chart = -1, its charts and experiment), copied with the prefix: a
** component's go to its instance's chart `chart`, their names unchanged,
** or, for a component declared in output mode `parent` (>= 0), into
** parent's chart as parent's sub-modes, their names and the transitions'
** prefixed. Fills mode_map for the declarations and equations copied next. */
void flatten_copy_elements(flattener *f, int cls, int prefix, int chart, int parent)
{
    const hy_syntax *in = f->in;
    hy_syntax *out = f->out;
    if (f->failed || (prefix >= 0 && chart < 0 && parent < 0))
        return;
    int nested = parent >= 0; /* chart is parent's, -1 for the implicit one */
    for (int l = 0; l < in->n_loops; l++)
        f->loop_map[l] = -1;
    for (int i = 0; i < in->n_charts && chart < 0 && !nested; i++)
        if (in->charts[i].cls == cls)
            f->chart_map[i] = flatten_add_chart(f, in->charts[i].name, in->charts[i].line,
                                                in->charts[i].column);
    for (int i = 0; i < in->n_modes && !f->failed; i++) {
        if (in->modes[i].cls != cls)
            continue;
        hy_mode_syn m = in->modes[i];
        m.cls = 0;
        m.chart = chart >= 0 || nested ? chart : m.chart >= 0 ? f->chart_map[m.chart] : -1;
        if (nested) {
            m.parent = parent;
            m.name = flatten_prefixed(f, prefix, m.name);
        }
        m.entry = copy_stmts(f, m.entry, prefix);
        m.exit = copy_stmts(f, m.exit, prefix);
        m.start_entry = copy_stmts(f, m.start_entry, prefix);
        if (f->failed
            || hy_grow((void **)&out->modes, &out->cap_modes, out->n_modes + 1, sizeof *out->modes)) {
            flatten_nomem(f);
            return;
        }
        f->mode_map[i] = out->n_modes;
        out->modes[out->n_modes++] = m;
    }
    for (int i = 0; i < in->n_transitions && !f->failed; i++) {
        if (in->transitions[i].cls != cls)
            continue;
        hy_transition_syn t = in->transitions[i];
        t.cls = 0;
        t.chart = chart >= 0 || nested ? chart : t.chart >= 0 ? f->chart_map[t.chart] : -1;
        if (nested) { /* unique among the chart's, which other components share */
            t.region = parent;
            t.name = flatten_prefixed(f, prefix, t.name);
            t.from = t.from >= 0 ? flatten_prefixed(f, prefix, t.from) : -1;
            t.to = t.to >= 0 ? flatten_prefixed(f, prefix, t.to) : -1;
        }
        t.when = flatten_copy_expr(f, t.when, prefix);
        t.actions = copy_stmts(f, t.actions, prefix);
        if (f->failed
            || hy_grow((void **)&out->transitions, &out->cap_transitions, out->n_transitions + 1,
                       sizeof *out->transitions)) {
            flatten_nomem(f);
            return;
        }
        out->transitions[out->n_transitions++] = t;
    }
    for (int i = 0; i < in->n_settings && chart < 0 && !nested && !f->failed; i++) {
        if (in->settings[i].cls != cls)
            continue;
        hy_setting_syn st = in->settings[i];
        st.cls = 0;
        st.value = flatten_copy_expr(f, st.value, -1);
        if (f->failed
            || hy_grow((void **)&out->settings, &out->cap_settings, out->n_settings + 1,
                       sizeof *out->settings)) {
            flatten_nomem(f);
            return;
        }
        out->settings[out->n_settings++] = st;
    }
}
