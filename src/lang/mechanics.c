/*
** Constrained mechanical systems in the model language. A mode of index
** > 1 whose equations are
**
**     der(q_k) = u_k                          kinematics (u_k an unknown)
**     r_i(q, u, der(u), lambda, t) = 0        dynamics, linear in der(u)
**                                             and in the multipliers
**     Phi_k(q, t) = 0                         constraints on the positions
**
** with one dynamic equation per position and one multiplier per
** constraint (the multipliers being the other unknowns) is compiled as a
** hydae mechanical mode (hydae_mode_set_mechanics):
**
**     M(q) u' = F(q, u, t) - C(q, t) lambda,  q' = u,  Phi(q, t) = 0
**
** with, symbolically, M = dr/d der(u) and C = dr/d lambda (rows in the
** file's order of the dynamics), F = -r(der(u) = 0, lambda = 0), Phi_q =
** dPhi/dq, Phi_t = dPhi/dt and gamma = -(v_q u + v_t) for v = Phi_q u +
** Phi_t (so that Phi_q u' = gamma is the second derivative of Phi = 0).
** der(q) elsewhere in the dynamics is read as u. Linearity is checked by
** occurrence: M and C must not mention der(u), the multipliers or the
** velocities, so dM/d der(u), dM/dlambda and dC/dlambda are identically
** zero and M, C depend on (q, t) only.
**
** Pantelides' counts (pantelides.c) confirm the structure: every
** constraint is differentiated twice and no dynamic equation at all (the
** index-3 structure of Lagrange's equations of the first kind). A mode of
** index > 1 that is not such a system is refused with the counts and what
** to change.
*/
#include "lang/sema.h"
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME(ir, id) hy_strtab_get((ir)->strings, (id))

enum { CLASS_POSITION, CLASS_VELOCITY, CLASS_MULTIPLIER };
enum { EQ_OTHER, EQ_KINEMATIC, EQ_DYNAMIC, EQ_CONSTRAINT };

typedef struct detect {
    hy_ir *ir;
    hy_ir_mode *mode;
    hy_diag *diag;
    char counts[400];        /* Pantelides' counts, as messages quote them */
    int n;                   /* unknowns, = equations */
    int *velocity_of;        /* per unknown: the velocity of a position, else -1 */
    int *position_of;        /* per unknown: the position of a velocity, else -1 */
    int *kinematic_of;       /* per unknown: a position's equation der(q) = u */
    int *var_class;          /* per unknown: CLASS_* */
    int *eq_class;           /* per equation: EQ_* */
    int *dynamics_residual;  /* per equation: the residual with der(q) read as u */
    int *new_index;          /* per unknown: its place in (q, u, lambda) */
    int n_q, n_c;
} detect;

static const char *var_name(const detect *d, int j)
{
    return NAME(d->ir, d->mode->vars[j].name);
}

static const char *count_word(int count, char *buf, size_t size)
{
    if (count == 1)
        snprintf(buf, size, "once");
    else if (count == 2)
        snprintf(buf, size, "twice");
    else
        snprintf(buf, size, "%d times", count);
    return buf;
}

/* "the equation at 10:13 twice and those at 6:10, 7:10 once". */
static void describe_counts(const hy_ir_mode *mode, char *buf, size_t size)
{
    const hy_ir_structure *st = &mode->structure;
    size_t used = 0;
    int max_count = 0, n_groups = 0;
    buf[0] = '\0';
    for (int i = 0; i < mode->n_equations; i++)
        if (st->differentiations[i] > max_count)
            max_count = st->differentiations[i];
    for (int c = max_count; c >= 1 && used + 40 < size; c--) {
        int n_here = 0;
        for (int i = 0; i < mode->n_equations; i++)
            n_here += st->differentiations[i] == c;
        if (n_here == 0)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s", n_groups == 0
                                 ? (n_here == 1 ? "the equation at " : "the equations at ")
                                 : (n_here == 1 ? " and the one at " : " and those at "));
        int listed = 0;
        for (int i = 0; i < mode->n_equations && used + 40 < size; i++)
            if (st->differentiations[i] == c)
                used += (size_t)snprintf(buf + used, size - used, "%s%d:%d", listed++ ? ", " : "",
                                         mode->equations[i].line, mode->equations[i].column);
        char word[32];
        if (used + 40 < size)
            used += (size_t)snprintf(buf + used, size - used, " %s",
                                     count_word(c, word, sizeof word));
        else
            used += (size_t)snprintf(buf + used, size - used, ", ...");
        n_groups++;
    }
}

/* An error about a mode that looks mechanical but is not, after the head
** naming its index and Pantelides' counts. */
static int refuse(detect *d, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);

static int refuse(detect *d, int line, int column, const char *fmt, ...)
{
    char reason[1000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    hy_diag_error(d->diag, line, column,
                  "mode '%s' has index %d (Pantelides' algorithm differentiates %s) but is not "
                  "a mechanical system hydae can reduce: %s",
                  NAME(d->ir, d->mode->name), d->mode->structure.index, d->counts, reason);
    return 1;
}

/* The leaves reachable from root, in *list (caller frees); -1 when out of
** memory. */
static int reach(detect *d, int root, int **list)
{
    int n = hy_x_reachable(&d->ir->dag, &root, 1, list);
    if (n < 0)
        hy_diag_nomem(d->diag);
    return n;
}

/* The first equation that uses der(y_j), or 0 (its index). */
static int first_use_of_derivative(detect *d, int j)
{
    for (int i = 0; i < d->mode->n_equations; i++) {
        int *list = NULL;
        int n = reach(d, d->mode->equations[i].residual, &list), found = 0;
        for (int k = 0; k < n && !found; k++) {
            const hy_xnode x = hy_x_node(&d->ir->dag, list[k]);
            found = x.op == X_YP && x.a == j;
        }
        hy_free(list);
        if (found)
            return i;
    }
    return 0;
}

/* The kinematic equations der(q) = u, u another unknown (first one per q
** and per u). Returns how many. */
static int find_kinematics(const hy_ir *ir, const hy_ir_mode *mode, int *velocity_of,
                           int *position_of, int *kinematic_of)
{
    int n_pairs = 0;
    for (int j = 0; j < mode->n_vars; j++)
        velocity_of[j] = position_of[j] = kinematic_of[j] = -1;
    for (int i = 0; i < mode->n_equations; i++) {
        const hy_ir_equation *eq = &mode->equations[i];
        int q = eq->explicit_state;
        if (q < 0 || eq->explicit_rhs < 0)
            continue;
        const hy_xnode rhs = hy_x_node(&ir->dag, eq->explicit_rhs);
        if (rhs.op != X_Y || rhs.a == q || velocity_of[q] >= 0 || position_of[rhs.a] >= 0)
            continue;
        velocity_of[q] = rhs.a;
        position_of[rhs.a] = q;
        kinematic_of[q] = i;
        n_pairs++;
    }
    return n_pairs;
}

int hy_mechanics_position_constraint(hy_ir *ir, const hy_ir_mode *mode)
{
    int n = mode->n_vars, found = -1;
    int *velocity_of = hy_malloc(sizeof(int) * (size_t)(n + 1));
    int *position_of = hy_malloc(sizeof(int) * (size_t)(n + 1));
    int *kinematic_of = hy_malloc(sizeof(int) * (size_t)(n + 1));
    if (velocity_of && position_of && kinematic_of
        && find_kinematics(ir, mode, velocity_of, position_of, kinematic_of) > 0) {
        for (int i = 0; i < mode->n_equations && found < 0; i++) {
            int root = mode->equations[i].residual, *list = NULL;
            int n_list = hy_x_reachable(&ir->dag, &root, 1, &list);
            int ok = n_list > 0, uses_position = 0;
            for (int k = 0; k < n_list && ok; k++) {
                const hy_xnode x = hy_x_node(&ir->dag, list[k]);
                if (x.op == X_YP)
                    ok = 0;
                else if (x.op == X_Y) {
                    ok = velocity_of[x.a] >= 0;
                    uses_position = 1;
                }
            }
            hy_free(list);
            if (ok && uses_position)
                found = i;
        }
    }
    hy_free(velocity_of);
    hy_free(position_of);
    hy_free(kinematic_of);
    return found;
}

/* The generic refusal: a mode of index > 1 that does not look mechanical. */
static int refuse_generic(detect *d)
{
    const hy_ir_mode *mode = d->mode;
    int first = 0;
    for (int i = 0; i < mode->n_equations; i++)
        if (mode->structure.differentiations[i] > mode->structure.differentiations[first])
            first = i;
    hy_diag_error(d->diag, mode->equations[first].line, mode->equations[first].column,
                  "mode '%s' has index %d: Pantelides' algorithm differentiates %s; hydae "
                  "reduces the index of mechanical systems only: differentiate by hand "
                  "(a constraint on the states replaced by its time derivative lowers the "
                  "index by one; the start values must still satisfy it), or write the mode "
                  "as a mechanical system (positions q with der(q) = u, dynamics linear in "
                  "der(u) and in the multipliers, constraints on q; docs/language.md, "
                  "\"Mechanical models\")",
                  NAME(d->ir, mode->name), mode->structure.index, d->counts);
    return 1;
}

/* Some der(q) = u whose u has a der() itself: the mode is meant as a
** mechanical system (a first-order der(x) = y, y algebraic, is not). */
static int looks_mechanical(detect *d)
{
    int n_pairs = find_kinematics(d->ir, d->mode, d->velocity_of, d->position_of, d->kinematic_of);
    for (int j = 0; j < d->n && n_pairs > 0; j++)
        if (d->position_of[j] >= 0 && d->mode->vars[j].is_differential)
            return 1;
    return 0;
}

/* Unknowns: positions, velocities, multipliers; refuse the other states. */
static int classify_unknowns(detect *d)
{
    const hy_ir_mode *mode = d->mode;
    for (int j = 0; j < d->n; j++) {
        if (d->velocity_of[j] >= 0 && d->position_of[j] >= 0) {
            const hy_ir_equation *as_velocity = &mode->equations[d->kinematic_of[d->position_of[j]]];
            const hy_ir_equation *as_position = &mode->equations[d->kinematic_of[j]];
            return refuse(d, as_position->line, as_position->column,
                          "'%s' is the velocity of '%s' (der(%s) = %s at %d:%d) and is itself "
                          "given as der(%s) = %s: write the dynamics with der(%s) in place of "
                          "'%s' (M der(u) = F - C lambda)",
                          var_name(d, j), var_name(d, d->position_of[j]),
                          var_name(d, d->position_of[j]), var_name(d, j), as_velocity->line,
                          as_velocity->column, var_name(d, j), var_name(d, d->velocity_of[j]),
                          var_name(d, j), var_name(d, d->velocity_of[j]));
        }
        d->var_class[j] = d->velocity_of[j] >= 0   ? CLASS_POSITION
                          : d->position_of[j] >= 0 ? CLASS_VELOCITY
                                                   : CLASS_MULTIPLIER;
    }
    for (int j = 0; j < d->n; j++) {
        if (d->var_class[j] == CLASS_MULTIPLIER && mode->vars[j].is_differential) {
            const hy_ir_equation *eq = &mode->equations[first_use_of_derivative(d, j)];
            return refuse(d, eq->line, eq->column,
                          "'%s' is a state (der(%s) at %d:%d) but not a position with a velocity "
                          "unknown: give it one, der(%s) = v with a new unknown v, and write its "
                          "dynamics with der(v)",
                          var_name(d, j), var_name(d, j), eq->line, eq->column, var_name(d, j));
        }
        if (d->var_class[j] == CLASS_VELOCITY && !mode->vars[j].is_differential) {
            int q = d->position_of[j];
            const hy_ir_equation *eq = &mode->equations[d->kinematic_of[q]];
            return refuse(d, eq->line, eq->column,
                          "'%s' is the velocity of '%s' (der(%s) = %s) but no equation has "
                          "der(%s): write the dynamics of '%s' with der(%s) (M der(u) = F - C "
                          "lambda)",
                          var_name(d, j), var_name(d, q), var_name(d, q), var_name(d, j),
                          var_name(d, j), var_name(d, q), var_name(d, j));
        }
    }
    return 0;
}

/* Equations: kinematics, dynamics (with der() of a velocity), constraints
** (positions, parameters and time only); der(q) is read as u. */
static int classify_equations(detect *d)
{
    hy_ir *ir = d->ir;
    const hy_ir_mode *mode = d->mode;
    int *as_velocity = hy_malloc(sizeof(int) * (size_t)(d->n + 1));
    unsigned char *in_dynamics = hy_calloc((size_t)d->n + 1, 1);
    if (!as_velocity || !in_dynamics) {
        hy_free(as_velocity);
        hy_free(in_dynamics);
        hy_diag_nomem(d->diag);
        return 1;
    }
    for (int j = 0; j < d->n; j++)
        as_velocity[j] = d->var_class[j] == CLASS_POSITION
                             ? hy_x_leaf(&ir->dag, X_Y, d->velocity_of[j]) : -1;
    /* Pass 1: the residuals with der(q) = u, the dynamics, and the unknowns
    ** the dynamics use (to name the right one when refusing). */
    int status = 0;
    for (int i = 0; i < mode->n_equations && status == 0; i++) {
        const hy_ir_equation *eq = &mode->equations[i];
        d->dynamics_residual[i] = -1;
        d->eq_class[i] = EQ_OTHER;
        int q = eq->explicit_state;
        if (q >= 0 && d->var_class[q] == CLASS_POSITION && d->kinematic_of[q] == i) {
            d->eq_class[i] = EQ_KINEMATIC;
            continue;
        }
        int root = hy_x_substitute(&ir->dag, eq->residual, X_YP, as_velocity, d->n);
        int *list = NULL;
        int n_list = root < 0 ? -1 : reach(d, root, &list);
        if (n_list < 0) {
            status = 1;
            break;
        }
        d->dynamics_residual[i] = root;
        for (int k = 0; k < n_list; k++)
            if (hy_x_node(&ir->dag, list[k]).op == X_YP)
                d->eq_class[i] = EQ_DYNAMIC;
        for (int k = 0; k < n_list && d->eq_class[i] == EQ_DYNAMIC; k++)
            if (hy_x_node(&ir->dag, list[k]).op == X_Y)
                in_dynamics[hy_x_node(&ir->dag, list[k]).a] = 1;
        hy_free(list);
    }
    /* Pass 2: the others must be constraints on the positions. */
    for (int i = 0; i < mode->n_equations && status == 0; i++) {
        const hy_ir_equation *eq = &mode->equations[i];
        if (d->eq_class[i] != EQ_OTHER)
            continue;
        int *list = NULL;
        int n_list = reach(d, d->dynamics_residual[i], &list);
        if (n_list < 0) {
            status = 1;
            break;
        }
        int uses_position = 0, velocity = -1, other = -1;
        for (int k = 0; k < n_list; k++) {
            const hy_xnode x = hy_x_node(&ir->dag, list[k]);
            if (x.op != X_Y)
                continue;
            if (d->var_class[x.a] == CLASS_POSITION)
                uses_position = 1;
            else if (d->var_class[x.a] == CLASS_VELOCITY && velocity < 0)
                velocity = x.a;
            else if (d->var_class[x.a] == CLASS_MULTIPLIER
                     && (other < 0 || (in_dynamics[other] && !in_dynamics[x.a])))
                other = x.a;
        }
        hy_free(list);
        if (velocity >= 0) {
            status = refuse(d, eq->line, eq->column,
                            "the equation at %d:%d has no der() of a velocity, so it is not "
                            "dynamics, and it uses the velocity '%s', so it is not a position "
                            "constraint: constraints on velocities are not supported; write the "
                            "position constraint Phi(q, t) = 0 instead",
                            eq->line, eq->column, var_name(d, velocity));
        } else if (other >= 0) {
            status = refuse(d, eq->line, eq->column,
                            "the equation at %d:%d has no der() of a velocity, so it is not "
                            "dynamics, and it uses '%s', so it is not a position constraint: "
                            "the algebraic unknowns of a mechanical mode are the constraints' "
                            "multipliers, which appear only in the dynamics; if the equation "
                            "defines '%s', make it an output (output %s = ...)",
                            eq->line, eq->column, var_name(d, other), var_name(d, other),
                            var_name(d, other));
        } else if (!uses_position) {
            status = refuse(d, eq->line, eq->column,
                            "the equation at %d:%d involves no position: a constraint Phi(q, t) "
                            "= 0 must restrain the positions",
                            eq->line, eq->column);
        } else {
            d->eq_class[i] = EQ_CONSTRAINT;
        }
    }
    hy_free(as_velocity);
    hy_free(in_dynamics);
    return status;
}

/* "6:10, 7:10" for the equations of class eq_class. */
static void list_equations(const detect *d, int eq_class, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < d->mode->n_equations && used + 24 < size; i++)
        if (d->eq_class[i] == eq_class)
            used += (size_t)snprintf(buf + used, size - used, "%s%d:%d", used ? ", " : "",
                                     d->mode->equations[i].line, d->mode->equations[i].column);
}

static void list_unknowns(const detect *d, int var_class, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < d->n && used + 40 < size; j++)
        if (d->var_class[j] == var_class)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
                                     var_name(d, j));
}

/* The counts, and Pantelides' confirmation of the index-3 structure. */
static int check_counts(detect *d)
{
    const hy_ir_mode *mode = d->mode;
    int n_dynamics = 0, n_constraints = 0, n_multipliers = 0, n_positions = 0;
    for (int i = 0; i < mode->n_equations; i++) {
        n_dynamics += d->eq_class[i] == EQ_DYNAMIC;
        n_constraints += d->eq_class[i] == EQ_CONSTRAINT;
    }
    for (int j = 0; j < d->n; j++) {
        n_multipliers += d->var_class[j] == CLASS_MULTIPLIER;
        n_positions += d->var_class[j] == CLASS_POSITION;
    }
    char eqs[300], names[300];
    if (n_constraints != n_multipliers) {
        list_equations(d, EQ_CONSTRAINT, eqs, sizeof eqs);
        list_unknowns(d, CLASS_MULTIPLIER, names, sizeof names);
        int first = 0;
        while (first < mode->n_equations && d->eq_class[first] != EQ_CONSTRAINT)
            first++;
        if (first == mode->n_equations)
            first = 0;
        return refuse(d, mode->equations[first].line, mode->equations[first].column,
                      "it has %d constraint%s (%s) but %d multiplier%s%s%s%s: each constraint "
                      "needs one multiplier, written into the dynamics (M der(u) = F - C lambda)",
                      n_constraints, n_constraints == 1 ? "" : "s", eqs, n_multipliers,
                      n_multipliers == 1 ? "" : "s", n_multipliers ? " (" : "", names,
                      n_multipliers ? ")" : "");
    }
    if (n_dynamics != n_positions) {
        list_unknowns(d, CLASS_VELOCITY, names, sizeof names);
        return refuse(d, mode->line, mode->column,
                      "it has %d dynamic equation%s (with der() of a velocity) for %d velocit%s "
                      "(%s): give each velocity one",
                      n_dynamics, n_dynamics == 1 ? "" : "s", n_positions,
                      n_positions == 1 ? "y" : "ies", names);
    }
    if (n_constraints >= n_positions)
        return refuse(d, mode->line, mode->column,
                      "it has %d constraints on %d positions: a mechanical system needs fewer "
                      "constraints than positions",
                      n_constraints, n_positions);
    char word[32];
    for (int i = 0; i < mode->n_equations; i++) {
        int count = mode->structure.differentiations[i];
        const hy_ir_equation *eq = &mode->equations[i];
        if (d->eq_class[i] == EQ_CONSTRAINT && count != 2)
            return refuse(d, eq->line, eq->column,
                          "the constraint at %d:%d is differentiated %s, not twice: its "
                          "multipliers must act on the positions it restrains (write lambda "
                          "times dPhi/dq into their dynamics)",
                          eq->line, eq->column, count_word(count, word, sizeof word));
        if (d->eq_class[i] == EQ_DYNAMIC && count != 0)
            return refuse(d, eq->line, eq->column,
                          "the dynamic equations cannot be solved for the accelerations (the one "
                          "at %d:%d is differentiated %s): each velocity needs its der() in the "
                          "dynamics, with a structurally nonsingular mass matrix",
                          eq->line, eq->column, count_word(count, word, sizeof word));
    }
    d->n_q = n_positions;
    d->n_c = n_constraints;
    return 0;
}

static int sparse_add(hy_ir_sparse *s, int row, int col, int node)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        int *rows = hy_realloc(s->rows, sizeof *rows * (size_t)cap);
        if (rows)
            s->rows = rows;
        int *cols = hy_realloc(s->cols, sizeof *cols * (size_t)cap);
        if (cols)
            s->cols = cols;
        int *nodes = hy_realloc(s->nodes, sizeof *nodes * (size_t)cap);
        if (nodes)
            s->nodes = nodes;
        if (!rows || !cols || !nodes)
            return -1;
        s->cap = cap;
    }
    s->rows[s->n] = row;
    s->cols[s->n] = col;
    s->nodes[s->n] = node;
    s->n++;
    return 0;
}

/* The coefficient `coef` of `what` in the dynamic equation eq may depend on
** positions, parameters and time only. */
static int check_coefficient(detect *d, const hy_ir_equation *eq, int coef, const char *what)
{
    int *list = NULL;
    int n_list = reach(d, coef, &list), status = n_list < 0;
    for (int k = 0; k < n_list && status == 0; k++) {
        const hy_xnode x = hy_x_node(&d->ir->dag, list[k]);
        if (x.op == X_YP)
            status = refuse(d, eq->line, eq->column,
                            "the dynamic equation at %d:%d is not linear in the accelerations and "
                            "multipliers: the coefficient of %s depends on der(%s); write it as "
                            "M(q) der(u) = F(q, u, t) - C(q, t) lambda",
                            eq->line, eq->column, what, var_name(d, x.a));
        else if (x.op == X_Y && d->var_class[x.a] == CLASS_MULTIPLIER)
            status = refuse(d, eq->line, eq->column,
                            "the dynamic equation at %d:%d is not linear in the accelerations and "
                            "multipliers: the coefficient of %s depends on '%s'; write it as "
                            "M(q) der(u) = F(q, u, t) - C(q, t) lambda",
                            eq->line, eq->column, what, var_name(d, x.a));
        else if (x.op == X_Y && d->var_class[x.a] == CLASS_VELOCITY)
            status = refuse(d, eq->line, eq->column,
                            "in the dynamic equation at %d:%d the coefficient of %s depends on "
                            "the velocity '%s': M and C may depend on positions, parameters and "
                            "time only (M(q) der(u) = F(q, u, t) - C(q, t) lambda)",
                            eq->line, eq->column, what, var_name(d, x.a));
    }
    hy_free(list);
    return status;
}

/* M, C and F from the dynamics, in the old unknowns' leaves; rows in file
** order, columns by new_index. */
static int derive_dynamics(detect *d, hy_ir_mechanics *mech)
{
    hy_ir *ir = d->ir;
    hy_expr *e = &ir->dag;
    int zero = hy_x_num(e, 0.0), status = 0, row = 0;
    int *zero_yp = hy_malloc(sizeof(int) * (size_t)(d->n + 1));
    int *zero_multiplier = hy_malloc(sizeof(int) * (size_t)(d->n + 1));
    if (!zero_yp || !zero_multiplier) {
        hy_free(zero_yp);
        hy_free(zero_multiplier);
        hy_diag_nomem(d->diag);
        return 1;
    }
    for (int j = 0; j < d->n; j++) {
        zero_yp[j] = zero;
        zero_multiplier[j] = d->var_class[j] == CLASS_MULTIPLIER ? zero : -1;
    }
    for (int i = 0; i < d->mode->n_equations && status == 0; i++) {
        if (d->eq_class[i] != EQ_DYNAMIC)
            continue;
        const hy_ir_equation *eq = &d->mode->equations[i];
        int root = d->dynamics_residual[i], *list = NULL;
        int n_list = reach(d, root, &list);
        status = n_list < 0;
        for (int k = 0; k < n_list && status == 0; k++) {
            const hy_xnode x = hy_x_node(e, list[k]);
            int j = x.a, is_acceleration = x.op == X_YP;
            if (!is_acceleration && !(x.op == X_Y && d->var_class[j] == CLASS_MULTIPLIER))
                continue;
            int coef = hy_x_derivative(e, root, list[k]);
            if (coef < 0) {
                hy_diag_nomem(d->diag);
                status = 1;
                break;
            }
            char what[300];
            snprintf(what, sizeof what, is_acceleration ? "der(%s)" : "'%s'", var_name(d, j));
            status = check_coefficient(d, eq, coef, what);
            if (status == 0 && !hy_x_is_num(e, coef, 0.0)
                && sparse_add(is_acceleration ? &mech->mass : &mech->multiplier_matrix, row,
                              d->new_index[j] - (is_acceleration ? d->n_q : 2 * d->n_q),
                              coef) != 0) {
                hy_diag_nomem(d->diag);
                status = 1;
            }
        }
        hy_free(list);
        if (status == 0) {
            int rest = hy_x_substitute(e, hy_x_substitute(e, root, X_YP, zero_yp, d->n), X_Y,
                                       zero_multiplier, d->n);
            mech->force[row] = hy_x_unary(e, X_NEG, rest);
            mech->dynamics[row] = i;
        }
        row++;
    }
    hy_free(zero_yp);
    hy_free(zero_multiplier);
    return status;
}

/* Phi, Phi_q, Phi_t and gamma from the constraints (old leaves). */
static int derive_constraints(detect *d, hy_ir_mechanics *mech)
{
    hy_expr *e = &d->ir->dag;
    int time = hy_x_leaf(e, X_T, 0), k = 0, depends_on_time = 0;
    for (int i = 0; i < d->mode->n_equations; i++) {
        if (d->eq_class[i] != EQ_CONSTRAINT)
            continue;
        int phi = d->mode->equations[i].residual, *list = NULL;
        int n_list = reach(d, phi, &list);
        if (n_list < 0)
            return 1;
        mech->constraints[k] = i;
        mech->constraint[k] = phi;
        /* v = Phi_q u + Phi_t */
        int phi_t = hy_x_derivative(e, phi, time), velocity = phi_t;
        for (int l = 0; l < n_list; l++) {
            const hy_xnode x = hy_x_node(e, list[l]);
            if (x.op != X_Y)
                continue;
            int q = x.a, entry = hy_x_derivative(e, phi, list[l]);
            if (entry < 0 || hy_x_is_num(e, entry, 0.0))
                continue;
            if (sparse_add(&mech->constraint_jac, k, d->new_index[q], entry) != 0) {
                hy_free(list);
                hy_diag_nomem(d->diag);
                return 1;
            }
            velocity = hy_x_binary(e, X_ADD, velocity,
                                   hy_x_binary(e, X_MUL, entry,
                                               hy_x_leaf(e, X_Y, d->velocity_of[q])));
        }
        hy_free(list);
        mech->constraint_t[k] = phi_t;
        depends_on_time |= phi_t >= 0 && !hy_x_is_num(e, phi_t, 0.0);
        /* gamma = -(v_q u + v_t) */
        if (velocity < 0) {
            hy_diag_nomem(d->diag);
            return 1;
        }
        n_list = reach(d, velocity, &list);
        if (n_list < 0)
            return 1;
        int sum = hy_x_derivative(e, velocity, time);
        for (int l = 0; l < n_list; l++) {
            const hy_xnode x = hy_x_node(e, list[l]);
            if (x.op != X_Y || d->var_class[x.a] != CLASS_POSITION)
                continue;
            sum = hy_x_binary(e, X_ADD, sum,
                              hy_x_binary(e, X_MUL, hy_x_derivative(e, velocity, list[l]),
                                          hy_x_leaf(e, X_Y, d->velocity_of[x.a])));
        }
        hy_free(list);
        mech->accel_rhs[k] = hy_x_unary(e, X_NEG, sum);
        k++;
    }
    if (!depends_on_time) {
        hy_free(mech->constraint_t);
        mech->constraint_t = NULL;
    }
    return 0;
}

/* The node with every y_j, y'_j leaf renamed to the new order. */
static int remap(hy_expr *e, int node, const int *subst_y, const int *subst_yp, int n)
{
    if (node < 0)
        return node;
    return hy_x_substitute(e, hy_x_substitute(e, node, X_Y, subst_y, n), X_YP, subst_yp, n);
}

static void remap_sparse(hy_expr *e, hy_ir_sparse *s, const int *subst_y, const int *subst_yp,
                         int n)
{
    for (int k = 0; k < s->n; k++)
        s->nodes[k] = remap(e, s->nodes[k], subst_y, subst_yp, n);
}

/* Reorder the mode's unknowns to (q, u, lambda) and every node that uses
** them: equations, guards, outputs, hidden relations, the matrices. */
static int reorder(detect *d, hy_ir_mechanics *mech)
{
    hy_ir_mode *mode = d->mode;
    hy_expr *e = &d->ir->dag;
    int n = d->n;
    int *subst_y = hy_malloc(sizeof(int) * (size_t)(n + 1));
    int *subst_yp = hy_malloc(sizeof(int) * (size_t)(n + 1));
    hy_ir_var *vars = hy_malloc(sizeof *vars * (size_t)(n + 1));
    if (!subst_y || !subst_yp || !vars) {
        hy_free(subst_y);
        hy_free(subst_yp);
        hy_free(vars);
        hy_diag_nomem(d->diag);
        return 1;
    }
    for (int j = 0; j < n; j++) {
        subst_y[j] = hy_x_leaf(e, X_Y, d->new_index[j]);
        subst_yp[j] = hy_x_leaf(e, X_YP, d->new_index[j]);
        vars[d->new_index[j]] = mode->vars[j];
    }
    memcpy(mode->vars, vars, sizeof *vars * (size_t)n);
    for (int i = 0; i < mode->n_equations; i++) {
        mode->equations[i].residual = remap(e, mode->equations[i].residual, subst_y, subst_yp, n);
        mode->equations[i].explicit_rhs = remap(e, mode->equations[i].explicit_rhs, subst_y,
                                                subst_yp, n);
        if (mode->equations[i].explicit_state >= 0)
            mode->equations[i].explicit_state = d->new_index[mode->equations[i].explicit_state];
    }
    for (int k = 0; k < mode->n_guards; k++)
        mode->guards[k] = remap(e, mode->guards[k], subst_y, subst_yp, n);
    for (int k = 0; k < mode->n_outputs; k++)
        mode->outputs[k].node = remap(e, mode->outputs[k].node, subst_y, subst_yp, n);
    for (int k = 0; k < mode->n_relations; k++)
        mode->relations[k].relation_node = remap(e, mode->relations[k].relation_node, subst_y,
                                                 subst_yp, n);
    remap_sparse(e, &mech->mass, subst_y, subst_yp, n);
    remap_sparse(e, &mech->multiplier_matrix, subst_y, subst_yp, n);
    remap_sparse(e, &mech->constraint_jac, subst_y, subst_yp, n);
    for (int k = 0; k < mech->n_q; k++)
        mech->force[k] = remap(e, mech->force[k], subst_y, subst_yp, n);
    for (int k = 0; k < mech->n_c; k++) {
        mech->constraint[k] = remap(e, mech->constraint[k], subst_y, subst_yp, n);
        mech->accel_rhs[k] = remap(e, mech->accel_rhs[k], subst_y, subst_yp, n);
        if (mech->constraint_t)
            mech->constraint_t[k] = remap(e, mech->constraint_t[k], subst_y, subst_yp, n);
    }
    hy_free(subst_y);
    hy_free(subst_yp);
    hy_free(vars);
    return 0;
}

void hy_ir_mechanics_free(hy_ir_mechanics *mech)
{
    hy_free(mech->kinematics);
    hy_free(mech->dynamics);
    hy_free(mech->constraints);
    hy_ir_sparse *sparse[3] = { &mech->mass, &mech->multiplier_matrix, &mech->constraint_jac };
    for (int k = 0; k < 3; k++) {
        hy_free(sparse[k]->rows);
        hy_free(sparse[k]->cols);
        hy_free(sparse[k]->nodes);
    }
    hy_free(mech->force);
    hy_free(mech->constraint);
    hy_free(mech->constraint_t);
    hy_free(mech->accel_rhs);
    memset(mech, 0, sizeof *mech);
}

/* The mechanical system of a classified mode: the new order (positions
** and multipliers in declaration order, each position's velocity in the
** same place), then the matrices, then the reordering. */
static int build_mechanics(detect *d)
{
    hy_ir_mechanics mech;
    memset(&mech, 0, sizeof mech);
    int n_q = d->n_q, n_c = d->n_c, next_q = 0, next_c = 2 * n_q;
    for (int j = 0; j < d->n; j++) {
        if (d->var_class[j] == CLASS_POSITION) {
            d->new_index[j] = next_q;
            d->new_index[d->velocity_of[j]] = n_q + next_q;
            next_q++;
        } else if (d->var_class[j] == CLASS_MULTIPLIER) {
            d->new_index[j] = next_c++;
        }
    }
    mech.n_q = n_q;
    mech.n_c = n_c;
    mech.kinematics = hy_malloc(sizeof(int) * (size_t)(n_q + 1));
    mech.dynamics = hy_malloc(sizeof(int) * (size_t)(n_q + 1));
    mech.force = hy_malloc(sizeof(int) * (size_t)(n_q + 1));
    mech.constraints = hy_malloc(sizeof(int) * (size_t)(n_c + 1));
    mech.constraint = hy_malloc(sizeof(int) * (size_t)(n_c + 1));
    mech.constraint_t = hy_malloc(sizeof(int) * (size_t)(n_c + 1));
    mech.accel_rhs = hy_malloc(sizeof(int) * (size_t)(n_c + 1));
    int status = 0;
    if (!mech.kinematics || !mech.dynamics || !mech.force || !mech.constraints || !mech.constraint
        || !mech.constraint_t || !mech.accel_rhs) {
        hy_diag_nomem(d->diag);
        status = 1;
    }
    if (status == 0) {
        for (int j = 0; j < d->n; j++)
            if (d->var_class[j] == CLASS_POSITION)
                mech.kinematics[d->new_index[j]] = d->kinematic_of[j];
        status = derive_dynamics(d, &mech);
    }
    if (status == 0)
        status = derive_constraints(d, &mech);
    if (status == 0)
        status = reorder(d, &mech);
    if (status == 0 && d->ir->dag.failed) {
        hy_diag_nomem(d->diag);
        status = 1;
    }
    if (status != 0) {
        hy_ir_mechanics_free(&mech);
        return status;
    }
    d->mode->mech = mech;
    d->mode->is_mechanical = 1;
    return 0;
}

int hy_mechanics_detect(hy_ir *ir, int m, hy_diag *diag)
{
    hy_ir_mode *mode = &ir->modes[m];
    const hy_ir_structure *st = &mode->structure;
    if (!st->reduced) {
        int i = st->stuck_equation >= 0 ? st->stuck_equation : 0;
        hy_diag_error(diag, mode->equations[i].line, mode->equations[i].column,
                      "mode '%s' has index > 1 and stays structurally singular however often "
                      "its equations are differentiated (Pantelides' algorithm does not finish "
                      "from the equation at %d:%d): some of its equations are dependent; remove "
                      "one, or replace it by an equation for the unknown it leaves undetermined",
                      NAME(ir, mode->name), mode->equations[i].line, mode->equations[i].column);
        return 1;
    }
    detect d;
    memset(&d, 0, sizeof d);
    d.ir = ir;
    d.mode = mode;
    d.diag = diag;
    d.n = mode->n_vars;
    describe_counts(mode, d.counts, sizeof d.counts);
    size_t size = sizeof(int) * (size_t)(d.n + 1);
    d.velocity_of = hy_malloc(size);
    d.position_of = hy_malloc(size);
    d.kinematic_of = hy_malloc(size);
    d.var_class = hy_malloc(size);
    d.eq_class = hy_malloc(size);
    d.dynamics_residual = hy_malloc(size);
    d.new_index = hy_malloc(size);
    int status;
    if (!d.velocity_of || !d.position_of || !d.kinematic_of || !d.var_class || !d.eq_class
        || !d.dynamics_residual || !d.new_index) {
        hy_diag_nomem(diag);
        status = 1;
    } else if (!looks_mechanical(&d)) {
        status = refuse_generic(&d);
    } else {
        status = classify_unknowns(&d);
        if (status == 0)
            status = classify_equations(&d);
        if (status == 0)
            status = check_counts(&d);
        if (status == 0)
            status = build_mechanics(&d);
    }
    hy_free(d.velocity_of);
    hy_free(d.position_of);
    hy_free(d.kinematic_of);
    hy_free(d.var_class);
    hy_free(d.eq_class);
    hy_free(d.dynamics_residual);
    hy_free(d.new_index);
    return status;
}
