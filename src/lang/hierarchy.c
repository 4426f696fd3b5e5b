/*
** Hierarchical charts flattened into charts of their leaf modes
** (hierarchy.h). The parser stores modes in pre-order, so the modes inside
** mode m are the indices [m + 1, end[m]) and its sub-modes are m + 1,
** end[m + 1], ... The semantics are those of Harel's statecharts as UML
** and Stateflow fix them (exit innermost first, entry outermost first,
** shallow history); a transition is external: leaving and entering a mode
** with sub-modes runs its exit and entry actions even when the transition
** stays inside it (`from driving to gear2`).
*/
#include "lang/hierarchy.h"

#include "core/core.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LEVELS = 64 }; /* above the parser's nesting limit */

/* The history variable of `mode` equals child_no: one condition of a copy. */
typedef struct history_test {
    int mode, child_no;
} history_test;

/* A leaf a transition into some mode may end in, and what it takes. */
typedef struct target {
    int leaf;
    int n_tests;
    history_test tests[MAX_LEVELS];
} target;

typedef struct named {
    int cls, chart, name, mode;
} named;

/* A transition made, with its place in the output. */
typedef struct made {
    hy_transition_syn tr;
    int depth, seq;
} made;

typedef struct hier {
    hy_syntax *syn;
    hy_strtab *strings;
    hy_diag *diag;
    int n;                   /* modes of the input */
    int *depth, *end, *child_no, *n_children, *default_child, *leaf_index, *path, *history;
    unsigned char *in_tree;  /* the mode's chart has modes with sub-modes */
    unsigned char *initial;  /* the initial leaf of such a chart */
    named *names;            /* sorted by chart, then name */
    target *targets;
    int n_targets, cap_targets;
    made *made;
    int n_made, cap_made;
    int failed;              /* out of memory */
} hier;

static const char *text(const hier *h, int id)
{
    return hy_strtab_get(h->strings, id);
}

static int nomem(hier *h)
{
    if (!h->failed)
        hy_diag_nomem(h->diag);
    h->failed = 1;
    return -1;
}

static int is_composite(const hier *h, int m)
{
    return h->n_children[m] > 0;
}

static int compare_named(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    if (a->chart != b->chart)
        return a->chart < b->chart ? -1 : 1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return a->mode < b->mode ? -1 : a->mode > b->mode;
}

/* The first entry of h->names not below (cls, chart, name). */
static int lower_bound(const hier *h, int cls, int chart, int name)
{
    named key = { cls, chart, name, INT_MIN };
    int lo = 0, hi = h->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (compare_named(&h->names[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The mode called name in the chart (cls, chart), or -1. */
static int find_mode(const hier *h, int cls, int chart, int name)
{
    int k = lower_bound(h, cls, chart, name);
    if (k < h->n && h->names[k].cls == cls && h->names[k].chart == chart
        && h->names[k].name == name)
        return h->names[k].mode;
    return -1;
}

/* Does the chart (cls, chart) have modes with sub-modes? */
static int chart_is_hierarchical(const hier *h, int cls, int chart)
{
    int k = lower_bound(h, cls, chart, INT_MIN);
    return k < h->n && h->names[k].cls == cls && h->names[k].chart == chart
           && h->in_tree[h->names[k].mode];
}

/* ---------------------------------------------------------------- */
/* The tree: depths, extents, sub-modes, names                      */

static void analyse_tree(hier *h)
{
    const hy_syntax *syn = h->syn;
    int n = h->n;
    for (int m = 0; m < n; m++) {
        int p = syn->modes[m].parent;
        h->depth[m] = p < 0 ? 0 : h->depth[p] + 1;
        h->end[m] = m + 1;
        h->default_child[m] = h->history[m] = -1;
        if (p >= 0)
            h->child_no[m] = ++h->n_children[p];
    }
    for (int m = n - 1; m >= 0; m--) {
        int p = syn->modes[m].parent;
        if (p >= 0 && h->end[m] > h->end[p])
            h->end[p] = h->end[m];
    }
    for (int m = 0, n_leaves = 0; m < n; m++)
        h->leaf_index[m] = is_composite(h, m) ? -1 : n_leaves++;
    for (int m = 0; m < n; m++)
        h->names[m] = (named){ syn->modes[m].cls, syn->modes[m].chart, syn->modes[m].name, m };
    if (n > 1)
        qsort(h->names, (size_t)n, sizeof *h->names, compare_named);
    /* Charts with sub-modes anywhere: their modes are rewritten. */
    for (int k = 0; k < n;) {
        int run = k, nested = 0;
        while (run < n && h->names[run].cls == h->names[k].cls
               && h->names[run].chart == h->names[k].chart)
            nested |= syn->modes[h->names[run++].mode].parent >= 0;
        for (; k < run; k++)
            h->in_tree[h->names[k].mode] = (unsigned char)nested;
    }
}

/* `history mode` without sub-modes (n_children NULL: no mode has any). */
static void check_histories(const hy_syntax *syn, const hy_strtab *strings, hy_diag *diag,
                            const int *n_children)
{
    for (int m = 0; m < syn->n_modes; m++) {
        const hy_mode_syn *mode = &syn->modes[m];
        if (mode->has_history && (!n_children || n_children[m] == 0))
            hy_diag_error(diag, mode->history_line, mode->history_column, "history mode '%s' "
                          "has no sub-modes to remember", hy_strtab_get(strings, mode->name));
    }
}

/* Errors of the hierarchy itself: names twice in one chart, two initial
** modes in one region, `resting` around sub-modes, `history` without. */
static void check_tree(hier *h)
{
    const hy_syntax *syn = h->syn;
    for (int k = 1; k < h->n; k++) {
        const named *a = &h->names[k - 1], *b = &h->names[k];
        if (!h->in_tree[b->mode] || a->cls != b->cls || a->chart != b->chart || a->name != b->name)
            continue;
        const hy_mode_syn *first = &syn->modes[a->mode], *again = &syn->modes[b->mode];
        char where[64];
        hy_diag_position(h->diag, first->line, first->column, where, sizeof where);
        hy_diag_error(h->diag, again->line, again->column, "mode '%s' declared twice in one "
                      "chart (first at %s): names are unique in a chart and its sub-modes",
                      text(h, again->name), where);
    }
    for (int m = 0; m < h->n; m++) {
        const hy_mode_syn *mode = &syn->modes[m];
        if (!h->in_tree[m])
            continue;
        if (mode->is_resting && is_composite(h, m))
            hy_diag_error(h->diag, mode->resting_line, mode->resting_column, "resting mode '%s' "
                          "has sub-modes; a resting mode must be a mode without sub-modes",
                          text(h, mode->name));
    }
    check_histories(h->syn, h->strings, h->diag, h->n_children);
}

/* The initial mode of the region inside `parent` (-1: the top of chart
** (cls, chart)): the one marked `initial` (a second is an error), else the
** first. */
static int region_default(hier *h, int parent, int cls, int chart)
{
    const hy_syntax *syn = h->syn;
    int first = -1, marked = -1;
    int from = parent < 0 ? 0 : parent + 1, to = parent < 0 ? h->n : h->end[parent];
    for (int m = from; m < to; m = parent < 0 ? m + 1 : h->end[m]) {
        const hy_mode_syn *mode = &syn->modes[m];
        if (mode->parent != parent || mode->cls != cls || mode->chart != chart)
            continue;
        if (first < 0)
            first = m;
        if (!mode->is_initial)
            continue;
        if (marked >= 0)
            hy_diag_error(h->diag, mode->line, mode->column, "second initial mode '%s' in %s%s%s "
                          "(the first is '%s')", text(h, mode->name),
                          parent < 0 ? "its chart" : "mode '",
                          parent < 0 ? "" : text(h, syn->modes[parent].name),
                          parent < 0 ? "" : "'", text(h, syn->modes[marked].name));
        else
            marked = m;
    }
    return marked >= 0 ? marked : first;
}

static int make_names(hier *h)
{
    const hy_syntax *syn = h->syn;
    for (int m = 0; m < h->n; m++) {
        int p = syn->modes[m].parent;
        h->path[m] = p < 0 ? syn->modes[m].name
                           : hy_strtab_intern_join(h->strings, text(h, h->path[p]), ".",
                                                   text(h, syn->modes[m].name));
        if (h->path[m] < 0)
            return nomem(h);
        if (is_composite(h, m))
            h->default_child[m] = region_default(h, m, syn->modes[m].cls, syn->modes[m].chart);
        if (is_composite(h, m) && syn->modes[m].has_history) {
            h->history[m] = hy_strtab_intern_join(h->strings, text(h, h->path[m]), ".", "history");
            if (h->history[m] < 0)
                return nomem(h);
        }
    }
    return 0;
}

/* The initial leaf of each hierarchical chart: from its top region's
** initial mode down through the initial sub-modes. */
static void mark_initial_leaves(hier *h)
{
    for (int k = 0; k < h->n; k++) {
        const named *first = &h->names[k];
        if (!h->in_tree[first->mode] || (k > 0 && h->names[k - 1].cls == first->cls
                                         && h->names[k - 1].chart == first->chart))
            continue; /* once per chart */
        int leaf = region_default(h, -1, first->cls, first->chart);
        while (leaf >= 0 && is_composite(h, leaf))
            leaf = h->default_child[leaf];
        if (leaf >= 0)
            h->initial[leaf] = 1;
    }
}

/* ---------------------------------------------------------------- */
/* Statements and expressions appended to the syntax                */

/* Copies of the statements of range appended: 0, or -1. */
static int append_stmts(hier *h, hy_stmt_range range)
{
    hy_syntax *syn = h->syn;
    for (int k = 0; k < range.count; k++) {
        if (hy_grow((void **)&syn->stmts, &syn->cap_stmts, syn->n_stmts + 1, sizeof *syn->stmts))
            return nomem(h);
        syn->stmts[syn->n_stmts] = syn->stmts[range.first + k];
        syn->n_stmts++;
    }
    return 0;
}

/* `variable := value` appended at (line, column): 0, or -1. */
static int append_assignment(hier *h, int variable, double value, int line, int column)
{
    hy_syntax *syn = h->syn;
    int node = hy_syntax_add_node(syn, SYN_NUM, line, column, -1, -1, -1);
    if (node < 0
        || hy_grow((void **)&syn->stmts, &syn->cap_stmts, syn->n_stmts + 1, sizeof *syn->stmts))
        return nomem(h);
    syn->nodes[node].value = value;
    hy_stmt_syn *st = &syn->stmts[syn->n_stmts++];
    memset(st, 0, sizeof *st);
    st->target = variable;
    st->line = line;
    st->column = column;
    st->value = (hy_expr_ref){ node, node };
    st->target_index = (hy_expr_ref){ node, -1 };
    st->loop = -1;
    return 0;
}

/* `when` and the history tests of t: (when) and h1 == c1 and ...; a copy of
** when's nodes followed by the tests, so the range stays contiguous. */
static hy_expr_ref when_with_tests(hier *h, hy_expr_ref when, const target *t)
{
    hy_syntax *syn = h->syn;
    hy_expr_ref result = { syn->n_nodes, -1 };
    if (t->n_tests == 0 || when.root < 0)
        return when;
    int base = syn->n_nodes;
    for (int j = when.first; j <= when.root; j++) {
        if (hy_grow((void **)&syn->nodes, &syn->cap_nodes, syn->n_nodes + 1, sizeof *syn->nodes)) {
            nomem(h);
            return result;
        }
        hy_syn node = syn->nodes[j];
        hy_syn_move_operands(&node, when.first, base);
        syn->nodes[syn->n_nodes++] = node;
    }
    int root = base + when.root - when.first;
    int line = syn->nodes[root].line, column = syn->nodes[root].column;
    for (int k = 0; k < t->n_tests; k++) {
        int var = hy_syntax_add_node(syn, SYN_NAME, line, column, -1, -1, -1);
        int num = hy_syntax_add_node(syn, SYN_NUM, line, column, -1, -1, -1);
        int eq = var < 0 || num < 0 ? -1 : hy_syntax_add_node(syn, SYN_EQ, line, column, var, num, -1);
        int both = eq < 0 ? -1 : hy_syntax_add_node(syn, SYN_AND, line, column, root, eq, -1);
        if (both < 0) {
            nomem(h);
            return result;
        }
        syn->nodes[var].name = h->history[t->tests[k].mode];
        syn->nodes[num].value = t->tests[k].child_no;
        root = both;
    }
    result.first = base;
    result.root = root;
    return result;
}

/* ---------------------------------------------------------------- */
/* Transitions                                                      */

/* The leaves a transition into mode m ends in (appended to h->targets):
** its initial sub-mode's, recursively, or in a history mode every
** sub-mode's with the test that it was the last active. */
static int add_targets(hier *h, int m, history_test *tests, int n_tests)
{
    if (!is_composite(h, m)) {
        if (hy_grow((void **)&h->targets, &h->cap_targets, h->n_targets + 1, sizeof *h->targets))
            return nomem(h);
        target *t = &h->targets[h->n_targets++];
        t->leaf = m;
        t->n_tests = n_tests;
        memcpy(t->tests, tests, sizeof *tests * (size_t)n_tests);
        return 0;
    }
    if (h->history[m] < 0)
        return add_targets(h, h->default_child[m], tests, n_tests);
    for (int c = m + 1; c < h->end[m]; c = h->end[c]) {
        tests[n_tests] = (history_test){ m, h->child_no[c] };
        if (add_targets(h, c, tests, n_tests + 1))
            return -1;
    }
    return 0;
}

/* The modes from the top of the chart down to m: their number. */
static int path_to(const hier *h, int m, int *path)
{
    int k = h->depth[m] + 1;
    for (int i = k - 1; i >= 0; i--, m = h->syn->modes[m].parent)
        path[i] = m;
    return k;
}

/* One copy of ts (input index seq) from leaf `from` to target t, where
** the modes at the first `kept` levels of the chart are not left. */
static int make_copy(hier *h, const hy_transition_syn *ts, int seq, int from, const target *t,
                     int kept, int source_depth)
{
    hy_syntax *syn = h->syn;
    int from_path[MAX_LEVELS], to_path[MAX_LEVELS];
    int n_from = path_to(h, from, from_path), n_to = path_to(h, t->leaf, to_path);
    hy_transition_syn copy = *ts;
    copy.from = h->path[from];
    copy.to = h->path[t->leaf];
    copy.region = -1;
    copy.is_copy = 1;
    copy.actions.first = syn->n_stmts;
    for (int level = n_from - 2; level >= kept; level--) /* the leaf's own: sema */
        if (append_stmts(h, syn->modes[from_path[level]].exit))
            return -1;
    if (append_stmts(h, ts->actions))
        return -1;
    for (int level = kept; level < n_to - 1; level++)
        if (append_stmts(h, syn->modes[to_path[level]].entry))
            return -1;
    for (int level = kept > 0 ? kept - 1 : 0; level < n_to - 1; level++) {
        int m = to_path[level];
        if (h->history[m] >= 0
            && append_assignment(h, h->history[m], h->child_no[to_path[level + 1]], ts->line,
                                 ts->column))
            return -1;
    }
    copy.actions.count = syn->n_stmts - copy.actions.first;
    copy.when = when_with_tests(h, ts->when, t);
    if (h->failed
        || hy_grow((void **)&h->made, &h->cap_made, h->n_made + 1, sizeof *h->made))
        return nomem(h);
    h->made[h->n_made++] = (made){ copy, source_depth, seq };
    return 0;
}

/* The mode a transition without from/to means: the only one of its region. */
static int only_mode(hier *h, const hy_transition_syn *ts)
{
    int only = -1, count = 0;
    for (int m = 0; m < h->n; m++) {
        const hy_mode_syn *mode = &h->syn->modes[m];
        if (mode->parent == ts->region && mode->cls == ts->cls && mode->chart == ts->chart) {
            only = m;
            count++;
        }
    }
    if (count == 1)
        return only;
    hy_diag_error(h->diag, ts->line, ts->column, "transition '%s' needs 'from MODE to MODE': "
                  "its %s has %d modes", text(h, ts->name), ts->region < 0 ? "chart" : "mode", count);
    return -1;
}

static int resolve_end(hier *h, const hy_transition_syn *ts, int name, int line, int column,
                       const char *verb)
{
    int m = find_mode(h, ts->cls, ts->chart, name);
    if (m < 0)
        hy_diag_error(h->diag, line, column, "transition '%s' %s unknown mode '%s'",
                      text(h, ts->name), verb, text(h, name));
    return m;
}

/* Transition seq of a hierarchical chart: its copies from every leaf it
** leaves to every leaf it may enter. */
static int flatten_transition(hier *h, int seq)
{
    const hy_transition_syn ts = h->syn->transitions[seq];
    int x, y;
    if (ts.from_any && ts.from < 0) {
        int to = find_mode(h, ts.cls, ts.chart, ts.to);
        if (to < 0)
            hy_diag_error(h->diag, ts.to_line, ts.to_column, "transition '%s' enters unknown "
                          "mode '%s'", text(h, ts.name), text(h, ts.to));
        else
            hy_diag_error(h->diag, ts.from_line, ts.from_column, "transition '%s' from '*' "
                          "leaves no mode: '%s' is not one of its region's modes or has no "
                          "sibling", text(h, ts.name), text(h, ts.to));
        return 0;
    }
    if (ts.from < 0) {
        x = y = only_mode(h, &ts);
    } else {
        x = resolve_end(h, &ts, ts.from, ts.from_line, ts.from_column, "leaves");
        y = resolve_end(h, &ts, ts.to, ts.to_line, ts.to_column, "enters");
    }
    if (x < 0 || y < 0)
        return 0;
    int x_path[MAX_LEVELS], y_path[MAX_LEVELS];
    int n_x = path_to(h, x, x_path), n_y = path_to(h, y, y_path);
    int kept = 0;
    while (kept < n_x && kept < n_y && x_path[kept] == y_path[kept])
        kept++;
    if (kept == n_x || kept == n_y) /* x inside y or y inside x: both left and entered */
        kept = (n_x < n_y ? n_x : n_y) - 1;
    h->n_targets = 0;
    history_test tests[MAX_LEVELS];
    if (add_targets(h, y, tests, 0))
        return -1;
    for (int leaf = x; leaf < h->end[x]; leaf++) {
        if (is_composite(h, leaf))
            continue;
        for (int k = 0; k < h->n_targets; k++) {
            target t = h->targets[k]; /* make_copy may grow the syntax, not targets */
            if (make_copy(h, &ts, seq, leaf, &t, kept, h->depth[x]))
                return -1;
        }
    }
    return 0;
}

static int compare_made(const void *pa, const void *pb)
{
    const made *a = pa, *b = pb;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int rewrite_transitions(hier *h)
{
    hy_syntax *syn = h->syn;
    for (int i = 0; i < syn->n_transitions; i++) {
        const hy_transition_syn *ts = &syn->transitions[i];
        int m = ts->from >= 0 ? find_mode(h, ts->cls, ts->chart, ts->from)
                : ts->to >= 0 ? find_mode(h, ts->cls, ts->chart, ts->to) : -1;
        int hierarchical = ts->region >= 0 || (m >= 0 && h->in_tree[m])
                           || (m < 0 && chart_is_hierarchical(h, ts->cls, ts->chart));
        if (hierarchical) {
            if (flatten_transition(h, i))
                return -1;
            continue;
        }
        if (hy_grow((void **)&h->made, &h->cap_made, h->n_made + 1, sizeof *h->made))
            return nomem(h);
        h->made[h->n_made++] = (made){ *ts, 0, i };
    }
    if (h->n_made > 1)
        qsort(h->made, (size_t)h->n_made, sizeof *h->made, compare_made);
    hy_transition_syn *out = hy_alloc_array((size_t)(h->n_made > 0 ? h->n_made : 1), sizeof *out);
    if (!out)
        return nomem(h);
    for (int k = 0; k < h->n_made; k++)
        out[k] = h->made[k].tr;
    hy_free(syn->transitions);
    syn->transitions = out;
    syn->n_transitions = syn->cap_transitions = h->n_made;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Modes, declarations, equations                                   */

static int rewrite_modes(hier *h)
{
    hy_syntax *syn = h->syn;
    int n_leaves = 0;
    for (int m = 0; m < h->n; m++)
        n_leaves += h->leaf_index[m] >= 0;
    hy_mode_syn *out = hy_alloc_array((size_t)(n_leaves > 0 ? n_leaves : 1), sizeof *out);
    if (!out)
        return nomem(h);
    for (int m = 0; m < h->n; m++) {
        if (h->leaf_index[m] < 0)
            continue;
        hy_mode_syn leaf = syn->modes[m];
        leaf.parent = -1;
        leaf.has_history = 0;
        if (h->in_tree[m]) {
            leaf.name = h->path[m];
            leaf.is_initial = h->initial[m];
            leaf.start_entry.first = syn->n_stmts;
            int path[MAX_LEVELS], n_path = path_to(h, m, path);
            for (int level = 0; level < n_path - 1 && h->initial[m]; level++) {
                hy_stmt_range entry = syn->modes[path[level]].entry;
                if (leaf.start_entry.line == 0 && entry.line > 0) {
                    leaf.start_entry.line = entry.line;
                    leaf.start_entry.column = entry.column;
                }
                if (append_stmts(h, entry))
                    break;
            }
            leaf.start_entry.count = syn->n_stmts - leaf.start_entry.first;
        }
        out[h->leaf_index[m]] = leaf;
    }
    hy_free(syn->modes);
    syn->modes = out;
    syn->n_modes = syn->cap_modes = n_leaves;
    return h->failed ? -1 : 0;
}

/* Each declaration or equation (`size` bytes at `items`, the mode field at
** `mode_offset`) of a mode with sub-modes is repeated in every leaf
** inside it, marked at `inherited_offset` (if not 0); the others' modes
** are renumbered. */
static int rewrite_items(hier *h, void **items, int *n_items, int *cap, size_t size,
                         size_t mode_offset, size_t inherited_offset)
{
    int n_out = 0, cap_out = 0;
    char *out = NULL;
    for (int i = 0; i < *n_items; i++) {
        char *item = (char *)*items + size * (size_t)i;
        int mode;
        memcpy(&mode, item + mode_offset, sizeof mode);
        int first = mode < 0 || h->leaf_index[mode] >= 0 ? mode : mode + 1;
        int last = mode < 0 || h->leaf_index[mode] >= 0 ? mode + 1 : h->end[mode];
        for (int m = first; m < last; m++) {
            if (m >= 0 && h->leaf_index[m] < 0)
                continue;
            if (hy_grow((void **)&out, &cap_out, n_out + 1, size)) {
                hy_free(out);
                return nomem(h);
            }
            char *copy = out + size * (size_t)n_out++;
            memcpy(copy, item, size);
            int renumbered = m < 0 ? -1 : h->leaf_index[m], inherited = 1;
            memcpy(copy + mode_offset, &renumbered, sizeof renumbered);
            if (inherited_offset > 0 && m != mode)
                memcpy(copy + inherited_offset, &inherited, sizeof inherited);
        }
    }
    hy_free(*items);
    *items = out;
    *n_items = n_out;
    *cap = cap_out;
    return 0;
}

/* The hidden discrete variable of each history mode, its start the
** initial sub-mode's number. */
static int declare_histories(hier *h)
{
    hy_syntax *syn = h->syn;
    for (int m = 0; m < h->n; m++) {
        if (h->history[m] < 0)
            continue;
        const hy_mode_syn *mode = &syn->modes[m];
        int node = hy_syntax_add_node(syn, SYN_NUM, mode->history_line, mode->history_column, -1,
                                      -1, -1);
        if (node < 0
            || hy_grow((void **)&syn->decls, &syn->cap_decls, syn->n_decls + 1, sizeof *syn->decls))
            return nomem(h);
        syn->nodes[node].value = h->child_no[h->default_child[m]];
        hy_decl *d = &syn->decls[syn->n_decls++];
        memset(d, 0, sizeof *d);
        d->kind = DECL_DISCRETE;
        d->name = h->history[m];
        d->line = d->value_line = mode->history_line;
        d->column = d->value_column = mode->history_column;
        d->value = (hy_expr_ref){ node, node };
        d->rtol.root = d->atol.root = d->size.root = -1;
        d->unit = d->description = d->type_name = -1;
        d->mode = -1;
        d->cls = mode->cls;
    }
    return 0;
}

/* The modes put in pre-order (each one's sub-modes right after it, as the
** parser makes them; flatten.c appends a component's sub-modes at the
** end), the declarations' and equations' modes renumbered: 0 or -1. */
static int to_preorder(hy_syntax *syn)
{
    int n = syn->n_modes;
    int *first_child = hy_alloc_array((size_t)n + 1, sizeof(int));
    int *next = hy_alloc_array((size_t)n, sizeof(int));
    int *order = hy_alloc_array((size_t)n, sizeof(int));
    int *stack = hy_alloc_array((size_t)n, sizeof(int));
    hy_mode_syn *modes = NULL;
    int status = first_child && next && order && stack ? 0 : -1;
    int n_order = 0, moved = 0;
    for (int m = 0; m <= n && status == 0; m++)
        first_child[m] = -1;
    /* Lists of sub-modes (roots under index n) in decreasing index order:
    ** pushed in that order, they come off the stack increasing. */
    for (int m = 0; m < n && status == 0; m++) {
        int p = syn->modes[m].parent < 0 ? n : syn->modes[m].parent;
        next[m] = first_child[p];
        first_child[p] = m;
    }
    int top = 0;
    for (int c = status == 0 ? first_child[n] : -1; c >= 0; c = next[c])
        stack[top++] = c;
    while (top > 0) {
        int m = stack[--top];
        moved |= m != n_order;
        order[n_order++] = m;
        for (int c = first_child[m]; c >= 0; c = next[c])
            stack[top++] = c;
    }
    if (status == 0 && moved) {
        modes = hy_alloc_array((size_t)n, sizeof *modes);
        status = modes ? 0 : -1;
    }
    if (status == 0 && moved) {
        int *new_index = stack; /* no longer needed as a stack */
        for (int k = 0; k < n; k++)
            new_index[order[k]] = k;
        for (int k = 0; k < n; k++) {
            modes[k] = syn->modes[order[k]];
            if (modes[k].parent >= 0)
                modes[k].parent = new_index[modes[k].parent];
        }
        for (int i = 0; i < syn->n_decls; i++)
            if (syn->decls[i].mode >= 0)
                syn->decls[i].mode = new_index[syn->decls[i].mode];
        for (int i = 0; i < syn->n_equations; i++)
            if (syn->equations[i].mode >= 0)
                syn->equations[i].mode = new_index[syn->equations[i].mode];
        hy_free(syn->modes);
        syn->modes = modes;
        syn->cap_modes = n;
    }
    hy_free(first_child);
    hy_free(next);
    hy_free(order);
    hy_free(stack);
    return status;
}

/* ---------------------------------------------------------------- */

static int flatten(hier *h)
{
    hy_syntax *syn = h->syn;
    analyse_tree(h);
    check_tree(h);
    if (h->diag->n_errors > 0 || make_names(h))
        return -1;
    mark_initial_leaves(h);
    if (h->diag->n_errors > 0)
        return -1;
    /* Transitions first: they read the modes' actions and the tree. */
    if (rewrite_transitions(h) || h->diag->n_errors > 0 || declare_histories(h)
        || rewrite_items(h, (void **)&syn->decls, &syn->n_decls, &syn->cap_decls,
                         sizeof *syn->decls, offsetof(hy_decl, mode),
                         offsetof(hy_decl, inherited))
        || rewrite_items(h, (void **)&syn->equations, &syn->n_equations, &syn->cap_equations,
                         sizeof *syn->equations, offsetof(hy_equation_syn, mode), 0))
        return -1;
    return rewrite_modes(h);
}

int hy_hierarchy_flatten(hy_syntax *syn, hy_strtab *strings, hy_diag *diag)
{
    int nested = 0;
    for (int m = 0; m < syn->n_modes && !nested; m++)
        nested = syn->modes[m].parent >= 0;
    int n_errors = diag->n_errors;
    if (!nested) {
        check_histories(syn, strings, diag, NULL);
        return diag->n_errors - n_errors;
    }
    if (to_preorder(syn)) {
        hy_diag_nomem(diag);
        return diag->n_errors - n_errors;
    }
    hier h;
    memset(&h, 0, sizeof h);
    h.syn = syn;
    h.strings = strings;
    h.diag = diag;
    h.n = syn->n_modes;
    size_t n = (size_t)h.n;
    int **arrays[] = { &h.depth, &h.end, &h.child_no, &h.n_children, &h.default_child,
                       &h.leaf_index, &h.path, &h.history };
    int ok = 1;
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        ok &= (*arrays[k] = hy_calloc(n, sizeof(int))) != NULL;
    h.in_tree = hy_calloc(n, 1);
    h.initial = hy_calloc(n, 1);
    h.names = hy_calloc(n, sizeof *h.names);
    if (!ok || !h.in_tree || !h.initial || !h.names)
        nomem(&h);
    else if (flatten(&h) == 0)
        syn->hierarchical = 1;
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        hy_free(*arrays[k]);
    hy_free(h.in_tree);
    hy_free(h.initial);
    hy_free(h.names);
    hy_free(h.targets);
    hy_free(h.made);
    return diag->n_errors - n_errors;
}
