/*
** The syntax's own utilities (syntax.h): appending an expression node,
** the arithmetic of constant expressions, the structural parameters
** (noted by the expansion of arrays, frozen as constants) and freeing.
*/
#include "lang/syntax.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

int hy_syntax_add_node(hy_syntax *s, hy_syn_op op, int line, int column, int a, int b, int c)
{
    if (hy_grow((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof *s->nodes))
        return -1;
    hy_syn *n = &s->nodes[s->n_nodes];
    memset(n, 0, sizeof *n);
    n->op = (unsigned char)op;
    n->line = line;
    n->column = column;
    n->a = a;
    n->b = b;
    n->c = c;
    n->name = -1;
    if (op == SYN_NUM)
        n->value = 0.0; /* its bytes are first's and var's */
    else
        n->first = n->var = -1;
    return s->n_nodes++;
}

void hy_syn_move_operands(hy_syn *n, int first, int base)
{
#define MOVED(k) ((k) >= first ? base + (k) - first : (k))
    n->a = n->a >= 0 ? MOVED(n->a) : -1;
    n->b = n->b >= 0 ? MOVED(n->b) : -1;
    n->c = n->c >= 0 ? MOVED(n->c) : -1;
    if (n->op >= SYN_INDEX && n->first >= 0) /* first shares value's bytes */
        n->first = MOVED(n->first);
#undef MOVED
}

int hy_syn_arith(hy_syn_op op, double a, double b, double *value)
{
    switch (op) {
    case SYN_NEG: *value = -a; return 1;
    case SYN_ADD: *value = a + b; return 1;
    case SYN_SUB: *value = a - b; return 1;
    case SYN_MUL: *value = a * b; return 1;
    case SYN_DIV: *value = a / b; return 1;
    case SYN_POW: *value = pow(a, b); return 1;
    default: return 0;
    }
}

int hy_syntax_note_structural(hy_syntax *s, int name)
{
    for (int i = 0; i < s->n_structural; i++)
        if (s->structural[i] == name)
            return 0;
    if (hy_grow((void **)&s->structural, &s->cap_structural, s->n_structural + 1,
                sizeof *s->structural))
        return -1;
    s->structural[s->n_structural++] = name;
    return 0;
}

void hy_syntax_freeze_structural(hy_syntax *s)
{
    for (int k = 0; k < s->n_structural; k++)
        for (int i = 0; i < s->n_decls; i++)
            if (s->decls[i].name == s->structural[k] && s->decls[i].kind == DECL_PARAMETER
                && s->decls[i].mode < 0)
                s->decls[i].kind = DECL_CONSTANT;
}

void hy_syntax_free(hy_syntax *s)
{
    hy_free(s->structural);
    hy_free(s->nodes);
    hy_free(s->decls);
    hy_free(s->equations);
    hy_free(s->stmts);
    hy_free(s->modes);
    hy_free(s->charts);
    hy_free(s->transitions);
    hy_free(s->settings);
    hy_free(s->loops);
    hy_free(s->classes);
    hy_free(s->mods);
    memset(s, 0, sizeof *s);
}
