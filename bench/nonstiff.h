/*
** Non-stiff benchmark problems for ABAM vs CVODE Adams and RK45 vs ARKODE
** Dormand-Prince: the Arenstorf orbit and the Pleiades (see nonstiff.c).
*/
#ifndef HY_BENCH_NONSTIFF_H
#define HY_BENCH_NONSTIFF_H

#include "bench.h"

/* The problems, in the order ARENSTORF, PLEIADES. */
extern const bench_case bench_nonstiff_cases[];
extern const int bench_nonstiff_n_cases;

#endif
