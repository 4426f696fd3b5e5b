/*
** The expression DAG of the model-language compiler (src/lang/expr.c) at
** the size of a large array model: hash-consing keeps every node unique
** (checked by sorting the nodes' contents, not through the hash table),
** asking again for a node finds it (also after the table is dropped and
** rebuilt), and a walk returns exactly the nodes a plain marking sweep
** reaches, ascending (short lists and the radix-sorted long ones). The
** derivatives of a function of 48 unknowns by reverse accumulation and
** by forward passes both match central differences of the function.
*/
#include "lang/expr.h"
#include "lang/vm.h"
#include "core/core.h"
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { N_LEAVES = 1000, N_STEPS = 200000 };

static uint64_t rng_state = 88172645463325252ull;

/* xorshift64 (Marsaglia 2003) */
static unsigned next_random(unsigned below)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % below);
}

typedef struct step {
    int kind, a, b, c;
    double value;
} step;

/* One constructor call described by s; its node (or -1). */
static int apply(hy_expr *e, const step *s)
{
    static const hy_xop binary[] = { X_ADD, X_SUB, X_MUL, X_DIV, X_POW, X_LT, X_AND };
    switch (s->kind) {
    case 0: return hy_x_num(e, s->value);
    case 1: return hy_x_leaf(e, X_Y, s->a);
    case 2: return hy_x_leaf(e, X_YP, s->a);
    case 3: return hy_x_unary(e, X_NEG, s->a);
    case 4: return hy_x_fn(e, FN_SIN, s->a, -1);
    case 5: return hy_x_fn(e, FN_ATAN2, s->a, s->b);
    case 6: return hy_x_if(e, s->a, s->b, s->c);
    default: return hy_x_binary(e, binary[s->kind - 7], s->a, s->b);
    }
}

/* A random step over the nodes made so far (made[0..n_made)). */
static step random_step(const int *made, int n_made)
{
    step s = { 0, -1, -1, -1, 0.0 };
    s.kind = n_made < 16 ? (int)next_random(3) : (int)next_random(14);
    if (s.kind == 0)
        s.value = (double)next_random(50) / 4.0 - 3.0;
    else if (s.kind <= 2)
        s.a = (int)next_random(N_LEAVES);
    else {
        s.a = made[next_random((unsigned)n_made)];
        s.b = made[next_random((unsigned)n_made)];
        s.c = made[next_random((unsigned)n_made)];
    }
    return s;
}

static int compare_nodes(const void *x, const void *y)
{
    const hy_xnode *p = x, *q = y;
    if (p->op != q->op)
        return p->op < q->op ? -1 : 1;
    if (p->fn != q->fn)
        return p->fn < q->fn ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->op == X_NUM)
        return memcmp(&p->value, &q->value, sizeof p->value);
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->c > q->c) - (p->c < q->c);
}

/* Every node differs from every other in its contents. */
static void nodes_unique(const hy_expr *e)
{
    hy_xnode *copy = malloc(sizeof *copy * (size_t)e->n_nodes);
    CHECK(copy != NULL, "malloc");
    if (!copy)
        return;
    for (int i = 0; i < e->n_nodes; i++) {
        copy[i] = hy_x_node(e, i);
        if (copy[i].op != X_NUM) {
            copy[i].b = hy_x_node(e, i).op >= X_NEG ? copy[i].b : -1;
            copy[i].c = hy_x_node(e, i).op >= X_NEG ? copy[i].c : -1;
        }
    }
    qsort(copy, (size_t)e->n_nodes, sizeof *copy, compare_nodes);
    int n_equal = 0;
    for (int i = 1; i < e->n_nodes; i++)
        n_equal += compare_nodes(&copy[i - 1], &copy[i]) == 0;
    CHECK(n_equal == 0, "%d pairs of equal nodes among %d", n_equal, e->n_nodes);
    free(copy);
}

/* The nodes reachable from roots by a sweep from the top index down
** (operands have smaller indices), ascending, into out; their count. */
static int reference_reach(const hy_expr *e, const int *roots, int n_roots, unsigned char *mark,
                           int *out)
{
    memset(mark, 0, (size_t)e->n_nodes);
    int top = -1;
    for (int r = 0; r < n_roots; r++)
        if (roots[r] >= 0) {
            mark[roots[r]] = 1;
            top = roots[r] > top ? roots[r] : top;
        }
    for (int i = top; i >= 0; i--) {
        hy_xnode x = hy_x_node(e, i);
        if (!mark[i] || x.op < X_NEG)
            continue;
        if (x.a >= 0) mark[x.a] = 1;
        if (x.b >= 0) mark[x.b] = 1;
        if (x.c >= 0) mark[x.c] = 1;
    }
    int n = 0;
    for (int i = 0; i <= top; i++)
        if (mark[i])
            out[n++] = i;
    return n;
}

static void walks_match(hy_expr *e, const int *made, int n_made)
{
    unsigned char *mark = malloc((size_t)e->n_nodes);
    int *want = malloc(sizeof *want * (size_t)e->n_nodes);
    int *roots = malloc(sizeof *roots * (size_t)n_made);
    CHECK(mark && want && roots, "malloc");
    int n_bad = 0, n_long = 0;
    for (int trial = 0; trial < 300 && mark && want && roots; trial++) {
        /* one root, a few, or (last) every node made */
        int n_roots = trial == 299 ? n_made : trial % 3 == 0 ? 1 : 1 + (int)next_random(60);
        for (int r = 0; r < n_roots; r++)
            roots[r] = trial == 299 ? made[r] : made[next_random((unsigned)n_made)];
        if (trial % 7 == 0)
            roots[0] = -1; /* ignored */
        const int *list = NULL;
        int n = hy_x_walk(e, roots, n_roots, &list);
        int n_want = reference_reach(e, roots, n_roots, mark, want);
        n_long += n > 32;
        if (n != n_want || (n > 0 && memcmp(list, want, sizeof *want * (size_t)n) != 0))
            n_bad++;
        int *copied = NULL;
        int n_copied = hy_x_reachable(e, roots, n_roots, &copied);
        if (n_copied != n_want || !copied
            || (n_copied > 0 && memcmp(copied, want, sizeof *want * (size_t)n_copied) != 0))
            n_bad++;
        hy_free(copied);
    }
    CHECK(n_bad == 0, "%d walks differ from the marking sweep", n_bad);
    CHECK(n_long > 10, "only %d walks longer than 32 nodes (the radix sort)", n_long);
    free(mark);
    free(want);
    free(roots);
}

enum { N_WIDE = 48 };

/* A smooth random function of y[0..N_WIDE) and y'[0..N_WIDE): a sum of
** terms, each a random smooth expression of a few unknowns, every unknown
** in at least one term. */
static int wide_function(hy_expr *e)
{
    int root = hy_x_num(e, 0.0);
    for (int term = 0; term < 3 * N_WIDE; term++) {
        int leaf = term < 2 * N_WIDE ? term : (int)next_random(2 * N_WIDE);
        int x = hy_x_leaf(e, leaf < N_WIDE ? X_Y : X_YP, leaf % N_WIDE);
        int other = hy_x_leaf(e, X_Y, (int)next_random(N_WIDE));
        int value;
        switch (next_random(6)) {
        case 0: value = hy_x_binary(e, X_MUL, x, hy_x_fn(e, FN_SIN, other, -1)); break;
        case 1: /* x / (1.5 + cos other) */
            value = hy_x_binary(e, X_DIV, x,
                                hy_x_binary(e, X_ADD, hy_x_num(e, 1.5), hy_x_fn(e, FN_COS, other, -1)));
            break;
        case 2: value = hy_x_binary(e, X_POW, x, hy_x_num(e, 3.0)); break;
        case 3: value = hy_x_fn(e, FN_EXP, hy_x_binary(e, X_MUL, hy_x_num(e, 0.3), x), -1); break;
        case 4: value = hy_x_fn(e, FN_ATAN2, x, hy_x_binary(e, X_ADD, hy_x_num(e, 2.0), other)); break;
        default: value = hy_x_binary(e, X_SUB, hy_x_binary(e, X_MUL, x, other), x); break;
        }
        root = hy_x_binary(e, term % 2 ? X_SUB : X_ADD, root, value);
    }
    return root;
}

/* d(root)/d(leaf) of wide_function by reverse accumulation and by forward
** passes, evaluated at a point, against central differences of root. */
static void wide_derivatives(void)
{
    hy_expr e;
    hy_expr_init(&e);
    int root = wide_function(&e);
    int leaves[2 * N_WIDE], reverse[2 * N_WIDE], forward[2 * N_WIDE];
    for (int k = 0; k < 2 * N_WIDE; k++)
        leaves[k] = hy_x_leaf(&e, k < N_WIDE ? X_Y : X_YP, k % N_WIDE);
    const int *list = NULL;
    int n_list = hy_x_walk(&e, &root, 1, &list);
    CHECK(n_list > 0 && hy_x_adjoints_over(&e, list, n_list) == 0, "adjoints");
    for (int k = 0; k < 2 * N_WIDE; k++)
        reverse[k] = hy_x_adjoint(&e, leaves[k]);
    for (int k = 0; k < 2 * N_WIDE; k++)
        forward[k] = hy_x_derivative(&e, root, leaves[k]);
    hy_program *value = hy_program_build(&e, &root, NULL, 1);
    hy_program *by_reverse = hy_program_build(&e, reverse, NULL, 2 * N_WIDE);
    hy_program *by_forward = hy_program_build(&e, forward, NULL, 2 * N_WIDE);
    CHECK(value && by_reverse && by_forward, "programs");
    double y[N_WIDE], yp[N_WIDE], d_reverse[2 * N_WIDE], d_forward[2 * N_WIDE];
    double worst = 0.0;
    for (int point = 0; point < 3 && value && by_reverse && by_forward; point++) {
        for (int j = 0; j < N_WIDE; j++) {
            y[j] = 0.4 + 0.5 * sin(1.3 * j + 2.1 * point);
            yp[j] = 0.7 * cos(0.9 * j + 1.7 * point);
        }
        hy_vm_input input = { 0.0, 0.0, y, yp, NULL, NULL };
        CHECK(hy_program_run(by_reverse, &input, d_reverse) == 0
                  && hy_program_run(by_forward, &input, d_forward) == 0, "the derivatives run");
        for (int k = 0; k < 2 * N_WIDE; k++) {
            double *v = k < N_WIDE ? y : yp, saved = v[k % N_WIDE], h = 1e-5;
            double plus, minus;
            v[k % N_WIDE] = saved + h;
            int ran = hy_program_run(value, &input, &plus);
            v[k % N_WIDE] = saved - h;
            ran |= hy_program_run(value, &input, &minus);
            CHECK(ran == 0, "the value runs");
            v[k % N_WIDE] = saved;
            double want = (plus - minus) / (2.0 * h);
            double err = fmax(fabs(d_reverse[k] - want), fabs(d_forward[k] - want)) / fmax(1.0, fabs(want));
            worst = fmax(worst, err);
        }
    }
    CHECK(worst <= 1e-6, "derivatives differ from central differences by %.3g", worst);
    hy_program_free(value);
    hy_program_free(by_reverse);
    hy_program_free(by_forward);
    hy_expr_free(&e);
}

int main(void)
{
    wide_derivatives();
    hy_expr e;
    hy_expr_init(&e);
    step *steps = malloc(sizeof *steps * N_STEPS);
    int *made = malloc(sizeof *made * N_STEPS);
    CHECK(steps && made, "malloc");
    if (!steps || !made)
        return CHECK_DONE();
    int n_made = 0;
    for (int k = 0; k < N_STEPS; k++) {
        steps[k] = random_step(made, n_made);
        int node = apply(&e, &steps[k]);
        if (node < 0)
            break;
        made[n_made++] = node;
    }
    CHECK(n_made == N_STEPS, "only %d of %d steps made a node", n_made, N_STEPS);
    CHECK(e.n_nodes > N_STEPS / 4, "only %d nodes from %d steps", e.n_nodes, N_STEPS);
    nodes_unique(&e);

    /* The same calls again find the same nodes and add none. */
    int n_nodes = e.n_nodes, n_moved = 0;
    for (int k = 0; k < n_made; k++)
        n_moved += apply(&e, &steps[k]) != made[k];
    CHECK(n_moved == 0 && e.n_nodes == n_nodes, "%d calls found other nodes; %d -> %d nodes",
          n_moved, n_nodes, e.n_nodes);

    /* With the table dropped, the first call rebuilds it. */
    hy_expr_drop_table(&e);
    n_moved = 0;
    for (int k = n_made - 1; k >= 0; k--)
        n_moved += apply(&e, &steps[k]) != made[k];
    CHECK(n_moved == 0 && e.n_nodes == n_nodes,
          "after the table was dropped %d calls found other nodes; %d -> %d nodes", n_moved,
          n_nodes, e.n_nodes);

    walks_match(&e, made, n_made);
    free(steps);
    free(made);
    hy_expr_free(&e);
    return CHECK_DONE();
}
