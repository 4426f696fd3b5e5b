/*
** A minimal test harness: CHECK records a failure with file:line and a
** message and goes on; CHECK_DONE prints "N passed, N failed" and gives
** the exit status.
*/
#ifndef HY_CHECK_H
#define HY_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_n_passed, check_n_failed;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (cond) {                                                          \
            check_n_passed++;                                                \
        } else {                                                             \
            check_n_failed++;                                                \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* |got - want| <= tol, with a message showing both. */
#define CHECK_NEAR(got, want, tol, what)                                     \
    do {                                                                     \
        double check_got_ = (got), check_want_ = (want);                     \
        CHECK(fabs(check_got_ - check_want_) <= (tol),                       \
              "%s: got %.17g, want %.17g (|diff| %.3g > %.3g)", (what),     \
              check_got_, check_want_, fabs(check_got_ - check_want_),       \
              (double)(tol));                                                \
    } while (0)

#define CHECK_DONE()                                                         \
    (printf("%d passed, %d failed\n", check_n_passed, check_n_failed),       \
     check_n_failed == 0 ? 0 : 1)

#endif
