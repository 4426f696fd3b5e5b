/*
** Alias elimination (alias.c): after flattening, the equations x = y and
** x = -y between model-level variables (connections, two-pin components)
** are removed with one variable of each pair, which becomes an output.
*/
#ifndef HY_LANG_ALIAS_H
#define HY_LANG_ALIAS_H

#include "lang/diag.h"
#include "lang/strtab.h"
#include "lang/syntax.h"

/* The number of equations removed (syntax->n_aliases), or -1 when out of
** memory (said through diag). */
int hy_alias_eliminate(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag);

#endif
