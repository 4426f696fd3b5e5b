/*
** The guard set of the active configuration (events.c, roots.c): the
** guards' values at the ends of the examined interval, their slopes, signs
** and crossings, and the snapshot of the configuration before a discrete
** phase that re-arming compares with. Owned by events.c.
*/
#ifndef HY_GUARDS_H
#define HY_GUARDS_H

#include "model/model.h"

typedef struct hy_guard_set {
    int cap;                    /* guards the arrays below hold */
    double *g_start, *g_end, *g_work;
    double *g_root;             /* located crossing time per guard */
    signed char *g_sign;        /* last non-zero sign; 0 = not armed */
    signed char *g_crossed;     /* crossing direction at the event */
    double *g_slope_start, *g_slope_end;  /* dG/dt along the dense output */
    double *g_probe;            /* guards at a probe point (roots.c) */
    double *g_up, *g_left;      /* guards at the end of a located instant and just
                                   before it (events.c, locate_in) */
    unsigned char *g_state;     /* per guard while an interval is examined (locate_in) */
    int slopes_valid;           /* g_slope_start belongs to g_start */
    int event_from_band;        /* the located crossing was an unarmed guard's */
    int armed;                  /* g_sign is meaningful */
    /* The configuration before the current discrete phase, for re-arming
    ** the guards after it (hy_guards_snapshot). */
    int have_prev;              /* the prev_* arrays describe the last layout */
    hydae_mode **prev_active;
    int *prev_guard_offset;
    int *prev_var_offset;
    double *prev_y;             /* the state before the discrete phase */
    int cap_prev_y;
    signed char *prev_sign, *prev_crossed;
    unsigned char *chart_fired; /* per chart: a transition fired this instant */
} hy_guard_set;

/* The per-chart arrays: 0 or HYDAE_ERR_NOMEM. */
int hy_guard_set_create(hy_guard_set *gs, int n_charts);
/* Room for n_guards guards and a state of n components. */
int hy_guard_set_reserve(hy_guard_set *gs, int n_guards, int n);
void hy_guard_set_free(hy_guard_set *gs);

#endif
