/*
** Registering result sinks from io/: the same append as hydae_sim_add_csv
** does inside sim.c, on the sim's sink list.
*/
#include "sinks.h"

int hy_sim_add_sink(hydae_sim *s, const hy_sink *sink)
{
    if (hy_reserve((void **)&s->sinks, &s->cap_sinks, s->n_sinks + 1, sizeof(hy_sink)))
        return HYDAE_ERR_NOMEM;
    s->sinks[s->n_sinks++] = *sink;
    return 0;
}
