/*
** The table of integrators by name. Adding a method is one file with its
** descriptor and one line here.
*/
#include "integrator.h"

#include <ctype.h>
#include <stddef.h>

const hy_integrator_ops *const hy_integrators[] = {
    &hy_dstiff,
    &hy_rk45,
    &hy_rk853,
    &hy_abam,
    &hy_rk4,
    &hy_vstiff,
    &hy_mstiff,
    &hy_radau,
    NULL,
};

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

const hy_integrator_ops *hy_integrator_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; hy_integrators[i]; i++)
        if (same_name(hy_integrators[i]->name, name))
            return hy_integrators[i];
    return NULL;
}
