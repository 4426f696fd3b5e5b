/*
** Values set by name before a run (--set NAME=VALUE): start values of the
** modes' continuous variables (hydae_model_set_start), and the message for
** a name that is nothing settable - every name that is, or the nearest
** ones by edit distance (Levenshtein, "Binary codes capable of correcting
** deletions, insertions and reversals", Soviet Physics Doklady 10 (1966)
** 707-710; the Wagner-Fischer dynamic programme, case-insensitive) when
** there are many.
**
** The naming rule: NAME is a parameter or discrete variable first; else
** the variable NAME of every mode that declares it, when they all declare
** the same start value (a model-level variable of a .hym file is one per
** mode, all alike); MODE.NAME is the variable NAME of mode MODE only, and
** is needed when the modes' start values differ. A dotted name that is
** no MODE.NAME is a name whole (a component's variable, R.i).
*/
#include "model.h"

#include "core/core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { HINT_ALL_MAX = 12, HINT_NEAREST = 8, NAME_CAP = 128 };

/* Calls fn(var, mode, user) for every variable called var_name, of modes
** called mode_name (NULL: any mode); the number of calls. */
static int for_each_var(hydae_model *m, const char *mode_name, const char *var_name,
                        void (*fn)(hy_var *, const hydae_mode *, void *), void *user)
{
    int n_found = 0;
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++) {
            hydae_mode *mode = m->charts[c]->modes[i];
            int k;
            if ((mode_name && strcmp(mode->name, mode_name) != 0)
                || !hy_mode_find_var(mode, var_name, &k))
                continue;
            n_found++;
            if (fn)
                fn(&mode->vars[k], mode, user);
        }
    return n_found;
}

typedef struct start_scan {
    int n, n_distinct, n_computed;
    double first_start;
    const hydae_mode *computed_mode;
    char listing[512];
} start_scan;

static void scan_var(hy_var *var, const hydae_mode *mode, void *user)
{
    start_scan *scan = user;
    if (scan->n == 0)
        scan->first_start = var->start;
    else if (var->start != scan->first_start)
        scan->n_distinct++;
    if (var->start_computed && scan->n_computed++ == 0)
        scan->computed_mode = mode;
    size_t used = strlen(scan->listing);
    hy_format(scan->listing + used, sizeof scan->listing - used, "%s%s.%s (start %g)",
              scan->n ? ", " : "", mode->name, var->name, var->start);
    scan->n++;
}

static void set_var(hy_var *var, const hydae_mode *mode, void *user)
{
    (void)mode;
    var->start = *(const double *)user;
    var->start_set = 1;
}

/* Edit distance of a and b, case-insensitive (at most NAME_CAP chars
** compared). */
static int edit_distance(const char *a, const char *b)
{
    int len_a = 0, len_b = 0;
    while (len_a < NAME_CAP && a[len_a])
        len_a++;
    while (len_b < NAME_CAP && b[len_b])
        len_b++;
    int row[NAME_CAP + 1];
    for (int j = 0; j <= len_b; j++)
        row[j] = j;
    for (int i = 1; i <= len_a; i++) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= len_b; j++) {
            int above = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diagonal + !same;
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[len_b];
}

typedef struct settable {
    char name[NAME_CAP * 2 + 2];
    int distance;
} settable;

/* Add name to the list unless it is there. */
static int add_settable(settable **list, int *n, int *cap, const char *name, const char *wanted)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i].name, name) == 0)
            return 0;
    if (hy_reserve((void **)list, cap, *n + 1, sizeof **list))
        return -1;
    hy_format((*list)[*n].name, sizeof (*list)[*n].name, "%s", name);
    (*list)[*n].distance = edit_distance(name, wanted);
    (*n)++;
    return 0;
}

/* Every settable name: parameters, discrete variables, variables (MODE.NAME
** where the modes' start values differ). */
static int collect_settable(hydae_model *m, const char *wanted, settable **list, int *n)
{
    int cap = 0;
    for (int g = 0; g < m->n_globals; g++)
        if (add_settable(list, n, &cap, m->globals[g].name, wanted))
            return -1;
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++) {
            const hydae_mode *mode = m->charts[c]->modes[i];
            for (int k = 0; k < mode->n_vars; k++) {
                start_scan scan;
                memset(&scan, 0, sizeof scan);
                for_each_var(m, NULL, mode->vars[k].name, scan_var, &scan);
                char qualified[NAME_CAP * 2 + 2];
                hy_format(qualified, sizeof qualified, "%s.%s", mode->name, mode->vars[k].name);
                if (add_settable(list, n, &cap,
                                 scan.n_distinct ? qualified : mode->vars[k].name, wanted))
                    return -1;
            }
        }
    return 0;
}

static int by_distance(const void *a, const void *b)
{
    const settable *x = a, *y = b;
    return x->distance != y->distance ? x->distance - y->distance : strcmp(x->name, y->name);
}

void hy_model_describe_unknown(hydae_model *m, const char *name, char *out, size_t size)
{
    if (hy_model_is_structural(m, name)) {
        hy_format(out, size, "'%s' is a structural parameter of model '%s': it sizes arrays or "
                  "bounds loops, so its value is fixed when the model file is compiled (change "
                  "it in the file)", name, m->name);
        return;
    }
    settable *list = NULL;
    int n = 0;
    if (collect_settable(m, name, &list, &n)) {
        hy_format(out, size, "no parameter, discrete variable or variable named '%s'", name);
        hy_free(list);
        return;
    }
    int n_shown = n;
    if (n > HINT_ALL_MAX) {
        qsort(list, (size_t)n, sizeof *list, by_distance);
        n_shown = HINT_NEAREST;
    }
    hy_format(out, size, "no parameter, discrete variable or variable named '%s'; %s: ", name,
              n == 0 ? "the model has none" : n_shown < n ? "the nearest of its names"
                                                          : "its names are");
    for (int i = 0; i < n_shown; i++) {
        size_t used = strlen(out);
        hy_format(out + used, size - used, "%s%s", i ? ", " : "", list[i].name);
    }
    if (n_shown < n) {
        size_t used = strlen(out);
        hy_format(out + used, size - used, " (%d more)", n - n_shown);
    }
    hy_free(list);
}

int hydae_model_set_start(hydae_model *m, const char *name, double value)
{
    if (!m || !name)
        return HYDAE_ERR_ARG;
    char mode_name[NAME_CAP + 1];
    const char *var_name = name, *dot = strchr(name, '.');
    const char *qualifier = NULL;
    if (dot && dot != name && (size_t)(dot - name) <= NAME_CAP) {
        hy_format(mode_name, sizeof mode_name, "%.*s", (int)(dot - name), name);
        qualifier = mode_name;
        var_name = dot + 1;
    }
    start_scan scan;
    memset(&scan, 0, sizeof scan);
    int n_found = for_each_var(m, qualifier, var_name, scan_var, &scan);
    if (n_found == 0 && qualifier) { /* a dotted name: a component's variable (R.i) */
        memset(&scan, 0, sizeof scan);
        qualifier = NULL;
        var_name = name;
        n_found = for_each_var(m, NULL, name, scan_var, &scan);
    }
    if (n_found == 0) {
        if (!m->build_error)
            hy_model_describe_unknown(m, name, m->errmsg, sizeof m->errmsg);
        return HYDAE_ERR_ARG;
    }
    if (scan.n_distinct > 0) {
        if (!m->build_error)
            hy_format(m->errmsg, sizeof m->errmsg, "'%s' is a variable of several modes with "
                      "different start values: %s; say which, as MODE.%s", name,
                      scan.listing, var_name);
        return HYDAE_ERR_ARG;
    }
    if (scan.n_computed > 0) {
        if (!m->build_error)
            hy_format(m->errmsg, sizeof m->errmsg, "the start value of '%s' in mode '%s' is "
                      "computed from parameters by the model (recomputed at t0 and on "
                      "entering the mode): set those parameters instead", var_name,
                      scan.computed_mode->name);
        return HYDAE_ERR_ARG;
    }
    for_each_var(m, qualifier, var_name, set_var, &value);
    return 0;
}

void hy_mode_set_start_computed(hydae_mode *mode, int var)
{
    if (mode && var >= 0 && var < mode->n_vars)
        mode->vars[var].start_computed = 1;
}
