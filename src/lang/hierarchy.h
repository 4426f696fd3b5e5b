/*
** Hierarchical charts (hierarchy.c): a mode may hold modes and transitions
** of its own (its sub-chart, active only while it is). Right after parsing,
** every chart with such modes is flattened into a chart of its leaf modes
** ("driving.gear1"), the classical reduction of a Harel chart:
**
** - a leaf has the declarations and equations of all its enclosing modes;
** - a transition from a mode with sub-modes leaves each of its leaves; one
**   into such a mode enters its initial sub-mode (recursively), or, in a
**   `history mode`, the sub-mode active when it was last left, kept in a
**   hidden discrete variable "driving.history" (1, 2, ... in the order of
**   the sub-modes) and tested in the copies' conditions;
** - a transition's actions become: exit actions of the modes it leaves,
**   innermost first, its own actions, entry actions of the modes it
**   enters, outermost first (the leaves' own exit and entry actions come
**   first and last as for any transition);
** - in a leaf, transitions leaving an outer mode come before those leaving
**   an inner one (priorities aside), as in Stateflow.
**
** The rest of the compiler sees flat charts only.
*/
#ifndef HY_LANG_HIERARCHY_H
#define HY_LANG_HIERARCHY_H

#include "lang/diag.h"
#include "lang/strtab.h"
#include "lang/syntax.h"

/* Flatten the hierarchical charts of *syntax in place (nothing to do when
** no mode holds modes); sets syntax->hierarchical when it did. Errors go
** to diag; returns their number. */
int hy_hierarchy_flatten(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag);

#endif
