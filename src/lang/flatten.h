/*
** Classes, components and connectors of the model language, flattened
** between the parser and the array expansion (unroll.h): the last
** `model` of the file is the one simulated; each component `TYPE NAME(mods)`
** in it is replaced by TYPE's declarations and equations with every name
** prefixed by "NAME." (to any depth), its modifiers giving parameters
** their values and variables their start values; every `connect(a, b)`
** joins two connectors into a connection set, which becomes equations
** (potentials equal, flows summing to zero: inside connectors +, the
** class's own connectors -), and a connector no connection reaches from
** outside gets flow = 0 (seed 000). A component with modes becomes a
** chart named by its path (`D1`, `sub.D3`) holding its modes and
** transitions. What comes out is one flat model.
*/
#ifndef HY_LANG_FLATTEN_H
#define HY_LANG_FLATTEN_H

#include "lang/diag.h"
#include "lang/syntax.h"

/* Components nested deeper than this are refused (a class containing
** itself, directly or not). */
enum { HY_FLATTEN_MAX_DEPTH = 64 };

/* Flatten *syntax in place (nothing to do for a file of one model without
** components or connections). Errors go to diag; returns their number. */
int hy_flatten(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag);

#endif
