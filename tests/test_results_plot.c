/*
** Axis numbers of the SVG plots (io/svgplot.h), against values worked out
** by hand: the step is 1, 2 or 5 times a power of ten nearest to
** span / target (the mantissa 1.2 gives 1, 1.75 gives 2, 3.5 gives 5, 8
** gives 10), and labels carry the decimals the step needs. The drawing
** itself is checked in tests/cli_results.sh (parsed as XML, positions
** mapped back to times and values) and by eye (docs/images/).
*/
#include "check.h"
#include "io/svgplot.h"

#include <string.h>

static void step(double span, int target, double want)
{
    double got = hy_plot_nice_step(span, target);
    CHECK(fabs(got - want) <= 1e-12 * want, "step(%g, %d) = %.17g, want %g", span, target, got,
          want);
}

static void label(double value, double step_size, const char *want)
{
    char got[64];
    hy_plot_tick_label(value, step_size, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "label(%.17g, step %g) = '%s', want '%s'", value, step_size,
          got, want);
}

int main(void)
{
    step(12.0, 10, 1.0);    /* 1.2 -> 1 */
    step(2.0, 4, 0.5);      /* 0.5 = 5e-1 */
    step(0.07, 4, 0.02);    /* 0.0175 -> 2e-2 */
    step(35.0, 10, 5.0);    /* 3.5 -> 5 */
    step(8.0, 1, 10.0);     /* 8 -> 10 */
    step(1.4e-6, 4, 5e-7);  /* 3.5e-7 -> 5e-7 */
    step(3.0e5, 6, 5e4);    /* 5e4 */

    label(0.30000000000000004, 0.1, "0.3");
    label(3 * 0.1, 0.1, "0.3");
    label(-1e-17, 0.1, "0");
    label(2.5, 0.5, "2.5");
    label(12.0, 2.0, "12");
    label(-0.94, 0.02, "-0.94");
    label(1e7, 1e6, "1e+07");
    label(2e-6, 1e-6, "2e-06");
    return CHECK_DONE();
}
