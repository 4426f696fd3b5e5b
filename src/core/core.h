/*
** Core utilities shared by every module: status messages, checked
** allocation, growable arrays, formatted messages into fixed buffers.
*/
#ifndef HY_CORE_H
#define HY_CORE_H

#include <stddef.h>

#if defined(__GNUC__)
#define HY_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HY_PRINTF(fmt_index, first_arg)
#endif

/* Make room for `need` elements in *items (capacity *cap, element size
** elem_size). 0, or -1 when out of memory (*items unchanged). */
int hy_reserve(void **items, int *cap, int need, size_t elem_size);

/* strdup that returns NULL on out of memory. */
char *hy_strdup(const char *s);

/* snprintf into buf[size]; truncation is silent but always terminated. */
void hy_format(char *buf, size_t size, const char *fmt, ...) HY_PRINTF(3, 4);

/* Time events (and sample ticks) within this of t are the same instant:
** 1e-12 max(1, |t|). A sample period must exceed twice it. */
double hy_time_tol(double t);

#endif
