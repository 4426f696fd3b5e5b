/*
** Sample clocks in a result table: the most frequent gap between
** successive events (sorted gaps, the longest run within a relative 1e-7)
** is the period when it is frequent enough; its ticks are the events on
** the grid through the first event that starts such a gap.
*/
#include "plotclock.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>

enum { MIN_CLOCK_GAPS = 8 };
static const double GAP_TOLERANCE = 1e-7; /* relative, between gaps of one period */
static const double TICK_TOLERANCE = 1e-4; /* of a period, from the grid */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The event times (left-limit rows) into a new array; NULL if none fit. */
static double *event_times(const hy_results *r, long *n)
{
    *n = 0;
    for (long k = 0; k < r->n_rows; k++)
        *n += r->kind[k] == HYDAE_ROW_EVENT_LEFT;
    double *times = *n > 0 ? hy_malloc(sizeof(double) * (size_t)*n) : NULL;
    long i = 0;
    for (long k = 0; times && k < r->n_rows; k++)
        if (r->kind[k] == HYDAE_ROW_EVENT_LEFT)
            times[i++] = r->t[k];
    return times;
}

/* The most frequent gap (sorted in place), and how often it occurs. */
static double frequent_gap(double *gaps, long n, long *count)
{
    qsort(gaps, (size_t)n, sizeof *gaps, compare_doubles);
    double best = 0.0;
    *count = 0;
    for (long i = 0, j = 0; i < n; i = j) {
        for (j = i; j < n && gaps[j] - gaps[i] <= GAP_TOLERANCE * gaps[i]; j++)
            ;
        if (j - i > *count && gaps[i] > 0.0) {
            *count = j - i;
            best = gaps[i + (j - i) / 2];
        }
        if (j == i)
            j++;
    }
    return best;
}

int hy_clock_tick(const hy_clock *clock, double t, long *k)
{
    if (!(clock->period > 0.0))
        return 0;
    double cycles = (t - clock->t_ref) / clock->period;
    double nearest = nearbyint(cycles);
    if (!(fabs(cycles - nearest) <= TICK_TOLERANCE) || fabs(nearest) > 1e15)
        return 0;
    *k = (long)nearest;
    return 1;
}

void hy_plot_find_clock(const hy_results *r, hy_clock *clock)
{
    clock->period = 0.0;
    clock->t_ref = 0.0;
    clock->n_ticks = 0;
    long n;
    double *times = event_times(r, &n);
    double *gaps = n > MIN_CLOCK_GAPS ? hy_malloc(sizeof(double) * (size_t)(n - 1)) : NULL;
    if (gaps) {
        for (long i = 0; i + 1 < n; i++)
            gaps[i] = times[i + 1] - times[i];
        long count;
        double period = frequent_gap(gaps, n - 1, &count);
        if (count >= MIN_CLOCK_GAPS && 4 * count >= n - 1 && isfinite(period)) {
            for (long i = 0; i + 1 < n; i++)
                if (fabs(times[i + 1] - times[i] - period) <= GAP_TOLERANCE * period) {
                    clock->t_ref = times[i];
                    break;
                }
            clock->period = period;
            long k;
            for (long i = 0; i < n; i++)
                clock->n_ticks += hy_clock_tick(clock, times[i], &k);
        }
    }
    hy_free(gaps);
    hy_free(times);
}
