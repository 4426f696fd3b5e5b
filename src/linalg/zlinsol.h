/*
** Complex linear systems (A + c B) x = b with A, B real n x n matrices of
** one storage (linsol.h, without fill-in rows: as hy_matrix_alloc makes
** them) and c = c_re + i c_im: RADAU's complex stage system
** (integrators/radau.c). Dense: a complex LU (zdense.c); band: a complex
** band LU (zband.c), on the reverse Cuthill-McKee permuted band when that
** is narrower; klu: KLU's complex LU (zklu.c, HYDAE_HAVE_KLU).
*/
#ifndef HY_ZLINSOL_H
#define HY_ZLINSOL_H

#include "linalg/linsol.h"

typedef struct hy_zlinsol hy_zlinsol;

/* A solver of the kind (not AUTO) for n unknowns; pattern needed for band
** and klu (that of A and B; the solver keeps a reference). NULL on out of
** memory. */
hy_zlinsol *hy_zlinsol_create(hy_ls_kind kind, size_t n, hy_pattern *pattern);
/* 1 when z was made for this kind, n and pattern. */
int hy_zlinsol_fits(const hy_zlinsol *z, hy_ls_kind kind, size_t n, const hy_pattern *pattern);
/* Form and factor A + (c_re + i c_im) B. 0; k > 0 when column k (1-based)
** has no pivot; -1 out of memory. */
int hy_zlinsol_factor(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                      double c_im);
/* x = (A + c B)^-1 (re + i im), into re and im. */
void hy_zlinsol_solve(hy_zlinsol *z, double *re, double *im);
void hy_zlinsol_free(hy_zlinsol *z);

#endif
