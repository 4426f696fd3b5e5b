/*
** Chattering and Zeno detection, called after every event instant that
** fired a transition. Three rules, each documented in docs/engine.md:
**  1. window: more than zeno_events instants within zeno_window (default
**     1e-9 max(1, |t|)) of time;
**  2. accumulation point: the gaps between the last instants shrink
**     geometrically (each of the last 4 ratios r = d_k / d_(k-1) < 1), and
**     the sum of the rest of that series, d_k r / (1 - r), is below the
**     window: the events accumulate at a point the run cannot pass
**     (a bouncing ball's Zeno point);
**  3. ping-pong: more than zeno_events consecutive instants each fired by
**     a guard that had not left its arming band (10 atol) since the
**     previous instant, i.e. the transitions keep firing each other with
**     no advance of the solution in the solver's tolerance sense (a reset
**     that lands exactly on the other mode's guard threshold).
*/
#include "sim.h"

#include <math.h>

void hy_chatter_reset(hy_chatter *c)
{
    c->t_last = -INFINITY;
    c->gap_last = INFINITY;
    c->window_start = -INFINITY;
    c->n_in_window = 0;
    c->n_shrinking = 0;
    c->n_band_chain = 0;
    c->n_recent = 0;
}

static double window_width(const hydae_sim *s)
{
    return s->set.zeno_window > 0.0 ? s->set.zeno_window : 1e-9 * fmax(1.0, fabs(s->t));
}

hy_chatter_kind hy_chatter_note(hydae_sim *s, int from_band, const hydae_transition *tr)
{
    hy_chatter *c = &s->chatter;
    double width = window_width(s);
    c->recent[c->n_recent++ % HY_CHATTER_RECENT] = tr;
    /* 3. ping-pong */
    c->n_band_chain = from_band ? c->n_band_chain + 1 : 0;
    if (c->n_band_chain > s->set.zeno_events)
        return HY_CHATTER_PINGPONG;
    /* 2. geometric accumulation */
    double gap = s->t - c->t_last;
    if (gap > 0.0 && gap < c->gap_last) {
        c->n_shrinking++;
        double r = gap / c->gap_last;
        if (c->n_shrinking >= 4 && gap * r / (1.0 - r) < width)
            return HY_CHATTER_ACCUMULATE;
    } else if (gap > 0.0) {
        c->n_shrinking = 0;
    }
    if (gap > 0.0)
        c->gap_last = gap;
    c->t_last = s->t;
    /* 1. window */
    if (s->t - c->window_start > width) {
        c->window_start = s->t;
        c->n_in_window = 0;
        return HY_CHATTER_NONE;
    }
    if (++c->n_in_window > s->set.zeno_events)
        return HY_CHATTER_ACCUMULATE;
    return HY_CHATTER_NONE;
}

int hy_chatter_pingpong_failure(hydae_sim *s)
{
    const hy_chatter *c = &s->chatter;
    const hydae_transition *latest_first[HY_CHATTER_RECENT];
    int n = c->n_recent < HY_CHATTER_RECENT ? c->n_recent : HY_CHATTER_RECENT;
    for (int i = 0; i < n; i++)
        latest_first[i] = c->recent[(c->n_recent - 1 - i) % HY_CHATTER_RECENT];
    char names[512];
    hy_describe_transitions(names, sizeof names, latest_first, n);
    hy_sim_fail(s, "chattering at t = %.17g: %d consecutive events, each fired by a guard that "
                "had not left its band of +-%.3g around zero since the previous event (no "
                "advance of the solution in the solver's tolerance); the transitions %s fire "
                "each other", s->t, c->n_band_chain, 10.0 * hy_base_atol(s), names);
    return HYDAE_ERR_ZENO;
}
