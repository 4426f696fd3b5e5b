/*
** Arrays and for-loops of the model language, expanded to scalars between
** the parser and the checker: `Real u[N]` becomes the variables u[1] ..
** u[N], `for i in 1:N loop ... end for;` repeats its equations or
** statements with i replaced by each value, `u[i + 1]` becomes the name
** "u[3]", `sum(e for i in a:b)` a chain of additions, and the constructors
** `{a, b, c}` and `{e for i in a:b}` give an array declaration one value
** per element. What comes out is a flat hy_syntax that the rest of the
** compiler reads as if written by hand (same positions for messages).
**
** Sizes, ranges and indices are constant expressions: numbers, `constant`
** names, enclosing loop variables, + - * / ^ and min, max, mod, floor,
** ceil, abs; a size cannot depend on a parameter (so `--set` cannot change
** the number of unknowns).
*/
#ifndef HY_LANG_UNROLL_H
#define HY_LANG_UNROLL_H

#include "lang/diag.h"
#include "lang/syntax.h"

/* Elements, equations, statements and reduction terms one model may
** expand to (HY_UNROLL_MAX_ITEMS, and 32 expression nodes per item): beyond,
** an error at the construct that passed it. The fuzz targets lower it. */
enum { HY_UNROLL_MAX_ITEMS = 8 * 1000 * 1000 };
extern long hy_unroll_max_items;

/* Expand *syntax in place (nothing to do, and nothing copied, for a model
** without arrays or loops). Errors go to diag; returns their number. */
int hy_unroll(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag);
/* The same; keep_loops: a for-loop of equations whose subscripts are the
** loop variable plus a constant stays one equation per body equation,
** written for the first value (hy_equation_syn.lanes, unroll_lanes.c),
** where the model has no modes, transitions or components. */
int hy_unroll_keep_loops(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag, int keep_loops);

#endif
