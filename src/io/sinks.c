/*
** The list of result sinks a run sends its rows to: add, begin, row,
** finish, free (the contract is in sinks.h).
*/
#include "sinks.h"

int hy_sink_set_add(hy_sink_set *set, const hy_sink *sink)
{
    if (hy_reserve((void **)&set->items, &set->cap, set->n + 1, sizeof(hy_sink)))
        return HYDAE_ERR_NOMEM;
    set->items[set->n++] = *sink;
    return 0;
}

void hy_sink_set_free(hy_sink_set *set)
{
    for (int i = 0; i < set->n; i++)
        if (set->items[i].release)
            set->items[i].release(set->items[i].user);
    hy_free(set->items);
    set->items = NULL;
    set->n = set->cap = 0;
}

int hy_sink_set_begin(hy_sink_set *set, const hydae_model *m)
{
    for (int i = 0; i < set->n; i++)
        if (set->items[i].begin && set->items[i].begin(set->items[i].user, m) != 0)
            return HYDAE_ERR_IO;
    return 0;
}

int hy_sink_set_row(hy_sink_set *set, hydae_row_kind kind, double t, const double *row)
{
    for (int i = 0; i < set->n; i++) {
        int failed = set->items[i].row(set->items[i].user, kind, t, row);
        if (failed == HYDAE_ERR_NOMEM && set->items[i].writes_file)
            return HYDAE_ERR_NOMEM;
        if (failed)
            return set->items[i].writes_file ? HYDAE_ERR_IO : HYDAE_ERR_CALLBACK;
    }
    return 0;
}

int hy_sink_set_finish(hy_sink_set *set, int status, double t, const char *message)
{
    int failed = 0;
    for (int i = 0; i < set->n; i++)
        if (set->items[i].finish && set->items[i].finish(set->items[i].user, status, t, message))
            failed = 1;
    return failed;
}
