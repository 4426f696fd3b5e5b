/*
** Tests of MSTIFF (src/integrators/mstiff.c), Cash's MEBDF: the tests of
** test_vstiff.c (closed-form problems, error shrinking with the tolerance,
** t_stop, dense output, restarts, options, failing right-hand sides) run
** on the hy_mstiff descriptor, whose orders k are 1..7.
*/
#define TEST_OPS hy_mstiff
#define TEST_METHOD_MAX_ORDER 7
#include "test_vstiff.c"
