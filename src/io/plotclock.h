/*
** Sample clocks in a result table, for the plots: events on a regular grid
** t_ref + k period (a sample clock's ticks) are told from the others, so
** that a plot can thin them or leave them out instead of hatching its
** panels with a line per tick.
*/
#ifndef HY_PLOTCLOCK_H
#define HY_PLOTCLOCK_H

#include "results.h"

typedef struct hy_clock {
    double period;  /* 0: no clock */
    double t_ref;   /* one tick: the ticks are at t_ref + k period */
    long n_ticks;   /* events on that grid */
} hy_clock;

/* The clock of the table's events (left-limit rows): found when at least
** 8 gaps between successive events, and a quarter of them, are one period
** (within a relative 1e-7). Without (or out of memory): period 0. */
void hy_plot_find_clock(const hy_results *r, hy_clock *clock);
/* 1 if t is a tick of the clock, with its number k (t = t_ref + k period). */
int hy_clock_tick(const hy_clock *clock, double t, long *k);

#endif
