/*
** RK853: the Dormand-Prince 8(5,3) explicit Runge-Kutta method for explicit
** ODEs y' = f(t, y) (Hairer's DOP853): 12 stages of an 8th-order solution,
** which is propagated, FSAL, an error estimate combining an embedded 5th-
** and a 3rd-order solution, PI step control, stiffness detection and a
** continuous extension of order 7 from 3 more stages.
**
**   [HNW]  E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**          Differential Equations I: Nonstiff Problems", 2nd ed., Springer
**          1993: II.10, the method DOP853 (the coefficients below are those
**          published with Hairer's code description of DOP853, the 12
**          stages, the error estimate (10.17) and the dense output of order
**          7 with stages 14-16); II.4, the error norm (4.10)-(4.11) and the
**          starting step (hy_explicit_initial_step).
**   [HNW2] E. Hairer, G. Wanner, "Solving Ordinary Differential Equations
**          II", 2nd ed., Springer 1996: IV.2, the stabilised (PI) step size
**          control and the automatic stiffness detection.
**
** Error estimate ([HNW] II.10): with sc_i = atol_i + rtol_i max(|y0_i|,
** |y1_i|), e5 = h sum_i E5_i k_i and e3 = sum_i E3_i k_i per component,
**   err5^2 = sum (e5_i / sc_i)^2 / n, err3^2 = sum (e3_i / sc_i)^2 / n,
**   err = h err5^2 / sqrt(err5^2 + 0.01 err3^2)
** (e5 without h): an O(h^8) estimate that behaves like the 5th-order one
** when h is large.
**
** Step control (stepctl.c's hy_erk_step, shared with RK45) as DOP853's,
** in RK45's PI form: fac = err^alpha / err_old^beta with alpha = 1/8 -
** 0.2 beta, h_new = h min(6, max(1/3, 0.9 / fac)); after a rejection no
** growth on the next accepted step.
** DOP853's default is beta = 0 (the standard controller); 0.04 is used
** here (RK45's value).
**
** Stiffness detection as RK45's (DOP853: stages 12 and 13 both at t + h,
** h lambda > 6.1, the stability boundary on the negative real axis).
**
** Dense output ([HNW] II.10): stages 14-16 (3 more evaluations of f,
** counted) are evaluated as part of every attempt that passes the error
** test, as DOP853 does when dense output is requested (IOUT >= 2): their
** arguments reach further from the step's solution than the 12 stages do
** (|a_sj| up to 9.2 in stages 14-16), and f may fail there (e.g. a
** constrained system in coordinate partitioning whose dependent
** coordinates have no solution off the manifold). Evaluated lazily after
** the step was accepted, such a failure could only make dense() fail;
** within the attempt it rejects the step like any failure of f (h / 4).
** With opt->no_interpolation (dense() only at the step's end) they are
** not evaluated. y(t0 + s h) is the nested polynomial
**   r1 + s (r2 + s1 (r3 + s (r4 + s1 (r5 + s (r6 + s1 (r7 + s r8))))))
** with s1 = 1 - s, r1 = y0, r2 = y1 - y0, r3 = h k1 - r2, r4 = r2 - h k13
** - r3, r5..r8 = h sum_i D_ji k_i.
*/
#include "integrators/stepctl.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RK853_N_STAGES 12       /* stages of a step (stage 13: FSAL) */
#define RK853_N_ALL 16          /* with the FSAL stage and dense stages */
#define RK853_FSAL 12           /* index of f(t + h, y1) */
#define RK853_ORDER 8
#define RK853_ERR_EXPONENT 0.125        /* 1/8 */
#define RK853_SAFETY 0.9
#define RK853_FAC_MIN (1.0 / 3.0)       /* DOP853: 1/fac1, fac1 = 0.333 */
#define RK853_FAC_MAX 6.0
#define RK853_PI_BETA 0.04
#define RK853_PI_ALPHA (RK853_ERR_EXPONENT - 0.2 * RK853_PI_BETA)
#define RK853_STIFF_H_LAMBDA 6.1

static const double rk853_c[RK853_N_ALL] = {
    0.0, 0.526001519587677318785587544488e-01,
    0.789002279381515978178381316732e-01, 0.118350341907227396726757197510,
    0.281649658092772603273242802490, 1.0 / 3.0, 0.25, 4.0 / 13.0,
    127.0 / 195.0, 0.6, 6.0 / 7.0, 1.0, 1.0, 0.1, 0.2, 7.0 / 9.0
};

/* a[s][j], j < s; row 12 (the FSAL stage) holds the weights b. */
static const double rk853_a[RK853_N_ALL][RK853_N_ALL - 1] = {
    { 0 },
    { 5.26001519587677318785587544488e-2 },
    { 1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2 },
    { 2.95875854768068491816892993775e-2, 0.0,
      8.87627564304205475450678981324e-2 },
    { 2.41365134159266685502369798665e-1, 0.0,
      -8.84549479328286085344864962717e-1, 9.24834003261792003115737966543e-1 },
    { 3.7037037037037037037037037037e-2, 0.0, 0.0,
      1.70828608729473871279604482173e-1, 1.25467687566822425016691814123e-1 },
    { 3.7109375e-2, 0.0, 0.0, 1.70252211019544039314978060272e-1,
      6.02165389804559606850219397283e-2, -1.7578125e-2 },
    { 3.70920001185047927108779319836e-2, 0.0, 0.0,
      1.70383925712239993810214054705e-1, 1.07262030446373284651809199168e-1,
      -1.53194377486244017527936158236e-2,
      8.27378916381402288758473766002e-3 },
    { 6.24110958716075717114429577812e-1, 0.0, 0.0,
      -3.36089262944694129406857109825, -8.68219346841726006818189891453e-1,
      2.75920996994467083049415600797e1, 2.01540675504778934086186788979e1,
      -4.34898841810699588477366255144e1 },
    { 4.77662536438264365890433908527e-1, 0.0, 0.0,
      -2.48811461997166764192642586468, -5.90290826836842996371446475743e-1,
      2.12300514481811942347288949897e1, 1.52792336328824235832596922938e1,
      -3.32882109689848629194453265587e1,
      -2.03312017085086261358222928593e-2 },
    { -9.3714243008598732571704021658e-1, 0.0, 0.0,
      5.18637242884406370830023853209, 1.09143734899672957818500254654,
      -8.14978701074692612513997267357, -1.85200656599969598641566180701e1,
      2.27394870993505042818970056734e1, 2.49360555267965238987089396762,
      -3.0467644718982195003823669022 },
    { 2.27331014751653820792359768449, 0.0, 0.0,
      -1.05344954667372501984066689879e1, -2.00087205822486249909675718444,
      -1.79589318631187989172765950534e1, 2.79488845294199600508499808837e1,
      -2.85899827713502369474065508674, -8.87285693353062954433549289258,
      1.23605671757943030647266201528e1, 6.43392746015763530355970484046e-1 },
    { 5.42937341165687622380535766363e-2, 0.0, 0.0, 0.0, 0.0,
      4.45031289275240888144113950566, 1.89151789931450038304281599044,
      -5.8012039600105847814672114227, 3.1116436695781989440891606237e-1,
      -1.52160949662516078556178806805e-1, 2.01365400804030348374776537501e-1,
      4.47106157277725905176885569043e-2 },
    { 5.61675022830479523392909219681e-2, 0.0, 0.0, 0.0, 0.0, 0.0,
      2.53500210216624811088794765333e-1, -2.46239037470802489917441475441e-1,
      -1.24191423263816360469010140626e-1, 1.5329179827876569731206322685e-1,
      8.20105229563468988491666602057e-3, 7.56789766054569976138603589584e-3,
      -8.298e-3 },
    { 3.18346481635021405060768473261e-2, 0.0, 0.0, 0.0, 0.0,
      2.83009096723667755288322961402e-2, 5.35419883074385676223797384372e-2,
      -5.49237485713909884646569340306e-2, 0.0, 0.0,
      -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4,
      -3.40465008687404560802977114492e-4, 1.41312443674632500278074618366e-1 },
    { -4.28896301583791923408573538692e-1, 0.0, 0.0, 0.0, 0.0,
      -4.69762141536116384314449447206, 7.68342119606259904184240953878,
      4.06898981839711007970213554331, 3.56727187455281109270669543021e-1,
      0.0, 0.0, 0.0, -1.39902416515901462129418009734e-3,
      2.9475147891527723389556272149, -9.15095847217987001081870187138 },
};

/* The 5th-order error weights E5 and the 3rd-order ones E3 = b - bhh
** (bhh_1 = 0.244094488188976377952755905512, bhh_9 =
** 0.733846688281611857341361741547, bhh_12 =
** 0.220588235294117647058823529412e-1), over stages 1..12. */
static const double rk853_e5[RK853_N_STAGES] = {
    0.1312004499419488073250102996e-1, 0.0, 0.0, 0.0, 0.0,
    -0.1225156446376204440720569753e1, -0.4957589496572501915214079952,
    0.1664377182454986536961530415e1, -0.3503288487499736816886487290,
    0.3341791187130174790297318841, 0.8192320648511571246570742613e-1,
    -0.2235530786388629525884427845e-1
};
static const double rk853_bhh[3] = {
    0.244094488188976377952755905512, 0.733846688281611857341361741547,
    0.220588235294117647058823529412e-1
};

/* D_ji, j = 5..8 of the dense output, over stages 1..16. */
static const double rk853_d[4][RK853_N_ALL] = {
    { -0.84289382761090128651353491142e1, 0.0, 0.0, 0.0, 0.0,
      0.56671495351937776962531783590, -0.30689499459498916912797304727e1,
      0.23846676565120698287728149680e1, 0.21170345824450282767155149946e1,
      -0.87139158377797299206789907490, 0.22404374302607882758541771650e1,
      0.63157877876946881815570249290, -0.88990336451333310820698117400e-1,
      0.18148505520854727256656404962e2, -0.91946323924783554000451984436e1,
      -0.44360363875948939664310572000e1 },
    { 0.10427508642579134603413151009e2, 0.0, 0.0, 0.0, 0.0,
      0.24228349177525818288430175319e3, 0.16520045171727028198505394887e3,
      -0.37454675472269020279518312152e3, -0.22113666853125306036270938578e2,
      0.77334326684722638389603898808e1, -0.30674084731089398182061213626e2,
      -0.93321305264302278729567221706e1, 0.15697238121770843886131091075e2,
      -0.31139403219565177677282850411e2, -0.93529243588444783865713862664e1,
      0.35816841486394083752465898540e2 },
    { 0.19985053242002433820987653617e2, 0.0, 0.0, 0.0, 0.0,
      -0.38703730874935176555105901742e3, -0.18917813819516756882830838328e3,
      0.52780815920542364900561016686e3, -0.11573902539959630126141871134e2,
      0.68812326946963000169666922661e1, -0.10006050966910838403183860980e1,
      0.77771377980534432092869265740, -0.27782057523535084065932004339e1,
      -0.60196695231264120758267380846e2, 0.84320405506677161018159903784e2,
      0.11992291136182789328035130030e2 },
    { -0.25693933462703749003312586129e2, 0.0, 0.0, 0.0, 0.0,
      -0.15418974869023643374053993627e3, -0.23152937917604549567536039109e3,
      0.35763911791061412378285349910e3, 0.93405324183624310003907691704e2,
      -0.37458323136451633156875139351e2, 0.10409964950896230045147246184e3,
      0.29840293426660503123344363579e2, -0.43533456590011143754432175058e2,
      0.96324553959188282948394950600e2, -0.39177261675615439165231486172e2,
      -0.14972683625798562581422125276e3 },
};

typedef struct rk853_mem {
    hy_erk r;                   /* first: state and step control (y at t) */
    int no_interpolation;       /* opt->no_interpolation: no dense stages */
    double *err5, *err3;        /* error estimates per component */
} rk853_mem;

static void rk853_destroy(void *mem)
{
    rk853_mem *d = mem;
    if (d == NULL)
        return;
    double **const slots[2] = { &d->err5, &d->err3 };
    hy_free_vectors(slots, 2);
    hy_erk_free(&d->r);
    hy_free(d);
}

static void *rk853_create(int n)
{
    if (n <= 0)
        return NULL;
    rk853_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    double **const slots[2] = { &d->err5, &d->err3 };
    int ok = hy_erk_alloc(&d->r, n, RK853_N_ALL, RK853_FSAL) == 0
             && hy_alloc_vectors(n, slots, 2) == 0;
    if (!ok) {
        rk853_destroy(d);
        return NULL;
    }
    return d;
}

static int rk853_init(void *mem, const hy_dae *dae, double t0,
                      const double *y0, const double *yp0,
                      const hy_options *opt)
{
    rk853_mem *d = mem;
    if (d == NULL)
        return HYDAE_ERR_ARG;
    d->no_interpolation = opt != NULL && opt->no_interpolation;
    return hy_erk_init(&d->r, dae, t0, y0, yp0, opt);
}

#if defined(__GNUC__)
#define RK853_KERNEL static inline __attribute__((always_inline))
#else
#define RK853_KERNEL static inline
#endif

/* out = y0 + h (c_s k_1 + sum_{j<s} a_sj (k_j - k_1)) for a constant stage
** s (a case of stage_argument's switch): the sum unrolled without its
** zero a_sj, the loop over the components vectorised. sum_j a_sj = c_s: a
** constant f gives y0 + c_s h f without rounding drift, as in RK45. */
RK853_KERNEL void stage_fixed(int n, int s, const hy_erk_bank *bank,
                              const double *y0, double h, double *restrict out)
{
    const double *k[RK853_N_ALL];
    for (int j = 0; j < s; j++)
        k[j] = bank->k[j];
    for (int i = 0; i < n; i++) {
        double k_1 = k[0][i];
        double incr = rk853_c[s] * k_1;
        for (int j = 1; j < s; j++)
            if (rk853_a[s][j] != 0.0)
                incr += rk853_a[s][j] * (k[j][i] - k_1);
        out[i] = y0[i] + h * incr;
    }
}

/* The argument of stage s, 1 <= s < RK853_N_ALL, of bank (compiled for
** AVX2 too, common.h). */
HY_VECTOR_CLONES
static void stage_argument(int n, const hy_erk_bank *bank, int s,
                           const double *y0, double h, double *out)
{
#define RK853_CASE(stage)                                                    \
    case stage: stage_fixed(n, stage, bank, y0, h, out); break;
    switch (s) {
    RK853_CASE(1) RK853_CASE(2) RK853_CASE(3) RK853_CASE(4) RK853_CASE(5)
    RK853_CASE(6) RK853_CASE(7) RK853_CASE(8) RK853_CASE(9) RK853_CASE(10)
    RK853_CASE(11) RK853_CASE(12) RK853_CASE(13) RK853_CASE(14)
    default: stage_fixed(n, RK853_N_ALL - 1, bank, y0, h, out); break;
    }
#undef RK853_CASE
}

/* The error norm of the attempt in bank with step h (see the header);
** sets head.worst when it fails. */
static double error_norm(rk853_mem *d, const hy_erk_bank *work, double h)
{
    int n = d->r.e.n;
    memset(d->err5, 0, (size_t)n * sizeof(double));
    memset(d->err3, 0, (size_t)n * sizeof(double));
    for (int s = 0; s < RK853_N_STAGES; s++) {
        /* E3 = b - bhh, bhh at stages 1, 9 and 12. */
        double e3 = rk853_a[RK853_FSAL][s]
                    - (s == 0 ? rk853_bhh[0] : s == 8 ? rk853_bhh[1]
                       : s == 11 ? rk853_bhh[2] : 0.0);
        const double *k_s = work->k[s];
        for (int i = 0; i < n; i++) {
            d->err5[i] += rk853_e5[s] * k_s[i];
            d->err3[i] += e3 * k_s[i];
        }
    }
    double sum5 = 0.0, sum3 = 0.0, worst_ratio = -1.0;
    int worst = -1;
    for (int i = 0; i < n; i++) {
        double scale = d->r.atol[i]
                       + d->r.rtol[i] * fmax(fabs(d->r.e.y[i]), fabs(d->r.y_new[i]));
        double r5 = d->err5[i] / scale, r3 = d->err3[i] / scale;
        sum5 += r5 * r5;
        sum3 += r3 * r3;
        if (!(fabs(r5) <= worst_ratio)) {
            worst_ratio = fabs(r5);
            worst = i;
        }
    }
    double den = sum5 + 0.01 * sum3;
    if (!(den > 0.0))
        den = 1.0;
    double err = fabs(h) * sum5 / sqrt(n * den);
    if (!(err <= 1.0))
        d->r.e.head.worst = worst;
    return err;
}

/* Stages 14-16 of the dense output into bank, from (t, y) over h; their
** arguments in err3 (free once the error norm is known: y_stage keeps
** stage 12's argument for the stiffness test). */
static int dense_stages(rk853_mem *d, hy_erk_bank *bank, double h)
{
    for (int s = RK853_FSAL + 1; s < RK853_N_ALL; s++) {
        stage_argument(d->r.e.n, bank, s, d->r.e.y, h, d->err3);
        int status = hy_eval_rhs(&d->r.e.dae, &d->r.e.head,
                                 d->r.e.t + rk853_c[s] * h, d->err3,
                                 bank->k[s]);
        if (status != HY_EVAL_OK)
            return status;
    }
    return HY_EVAL_OK;
}

/* One attempt from (t, y) with step h to t_try: stages 2..12 into the
** working bank, y_new, the error norm, and when the step passes, the FSAL
** stage f(t_try, y_new) and the dense stages 14-16 (a failure of either
** rejects the step). HY_EVAL_OK with *err_norm set, or the failure of
** f. */
static int attempt(void *mem, double h, double t_try, double *err_norm)
{
    rk853_mem *d = mem;
    int n = d->r.e.n;
    hy_erk_bank *work = &d->r.banks[1 - d->r.cur];
    for (int s = 1; s <= RK853_FSAL; s++) {
        double *arg = s == RK853_FSAL ? d->r.y_new : d->r.y_stage;
        stage_argument(n, work, s, d->r.e.y, h, arg);
        if (s == RK853_FSAL)
            break;
        double t_stage = rk853_c[s] == 1.0 ? t_try : d->r.e.t + rk853_c[s] * h;
        int status = hy_eval_rhs(&d->r.e.dae, &d->r.e.head, t_stage, arg,
                                 work->k[s]);
        if (status != HY_EVAL_OK)
            return status;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(d->r.y_new[i])) {
            d->r.e.head.worst = i;
            return HY_EVAL_RES_FAIL;
        }
    *err_norm = error_norm(d, work, h);
    if (!(*err_norm <= 1.0))
        return HY_EVAL_OK;
    int status = hy_eval_rhs(&d->r.e.dae, &d->r.e.head, t_try, d->r.y_new,
                             work->k[RK853_FSAL]);
    if (status != HY_EVAL_OK || d->no_interpolation)
        return status;
    return dense_stages(d, work, h);
}

/* The stiffness test on stages 12 and 13, both at t + h (y_stage still
** holds the argument of stage 12). */
static void accept(void *mem, double h)
{
    rk853_mem *d = mem;
    const hy_erk_bank *work = &d->r.banks[1 - d->r.cur];
    hy_explicit_stiffness_test(&d->r.e, &d->r.stiff, h, RK853_STIFF_H_LAMBDA,
                               work->k[RK853_FSAL], work->k[11], d->r.y_new,
                               d->r.y_stage);
}

static const hy_erk_method rk853_method = {
    .order = RK853_ORDER,
    .err_exponent = RK853_ERR_EXPONENT,
    .pi_alpha = RK853_PI_ALPHA,
    .pi_beta = RK853_PI_BETA,
    .safety = RK853_SAFETY,
    .fac_min = RK853_FAC_MIN,
    .fac_max = RK853_FAC_MAX,
    .attempt = attempt,
    .accept = accept,
};

static int rk853_step(void *mem, double t_stop, double *t_new)
{
    return hy_erk_step(mem, &rk853_method, t_stop, t_new);
}

/* y and y' at t in [t_prev, t] from the continuous extension of order 7
** (see the header), the derivative by differentiating the nested form. */
static int rk853_dense(void *mem, double t, double *y, double *yp)
{
    rk853_mem *d = mem;
    int point = hy_explicit_dense_point(
        d ? &d->r.e : NULL, t, d ? d->r.banks[d->r.cur].k[RK853_FSAL] : NULL, y,
        yp);
    if (point != 0)
        return point < 0 ? point : HYDAE_OK;
    if (d->no_interpolation)
        return HYDAE_ERR_ARG;
    double h = d->r.e.t - d->r.e.t_prev;
    const hy_erk_bank *acc = &d->r.banks[d->r.cur];
    double s = (t - d->r.e.t_prev) / h, s1 = 1.0 - s;
    for (int i = 0; i < d->r.e.n; i++) {
        double r[8];
        r[0] = d->r.y_prev[i];
        r[1] = d->r.e.y[i] - d->r.y_prev[i];
        r[2] = h * acc->k[0][i] - r[1];
        r[3] = r[1] - h * acc->k[RK853_FSAL][i] - r[2];
        for (int j = 0; j < 4; j++) {
            double sum = 0.0;
            for (int st = 0; st < RK853_N_ALL; st++)
                sum += rk853_d[j][st] * acc->k[st][i];
            r[4 + j] = h * sum;
        }
        /* From the inside out: q = r_m + x q_next, x alternating s and
        ** s1 (d/ds of s1 is -1). */
        double q = r[7], dq = 0.0;
        for (int m = 6; m >= 0; m--) {
            int by_s = m % 2 == 0;  /* r[m] + s (...) for even m */
            double x = by_s ? s : s1, dx = by_s ? 1.0 : -1.0;
            dq = dx * q + x * dq;
            q = r[m] + x * q;
        }
        if (y)
            y[i] = q;
        if (yp)
            yp[i] = dq / h;
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_rk853 = {
    .name = "RK853",
    .create = rk853_create,
    .init = rk853_init,
    .step = rk853_step,
    .dense = rk853_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = rk853_destroy,
    .needs_rhs = 1,
    .fixed_step = 0,
    .max_order = 0,
};
