/*
** A progress bar for a terminal (hydae_sim_add_progress): one line,
** redrawn in place with a carriage return at most 10 times a second as
** result rows arrive, and erased when the run ends:
**   t =      3.41 / 12  [########....................]  28%  events 2  0.4 s
** It is a result sink that writes nothing but this line.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "columns.h"
#include "sinks.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BAR_WIDTH = 28 };

typedef struct progress {
    hydae_sim *sim;
    FILE *out;
    struct timespec started;
    double last_drawn;   /* elapsed seconds at the last drawing, < 0: none yet */
    int line_length;     /* characters of the line on screen */
} progress;

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

static int progress_begin(void *user, const hydae_model *m)
{
    (void)m;
    progress *p = user;
    clock_gettime(CLOCK_MONOTONIC, &p->started);
    p->last_drawn = -1.0;
    p->line_length = 0;
    return 0;
}

static void draw(progress *p, double t, double elapsed)
{
    const hydae_sim *s = p->sim;
    double t0, t_end;
    hy_sim_span(s, &t0, &t_end);
    double fraction = (t - t0) / (t_end - t0);
    if (!(fraction >= 0.0))
        fraction = 0.0;
    if (fraction > 1.0)
        fraction = 1.0;
    char bar[BAR_WIDTH + 1];
    int filled = (int)(fraction * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    char line[160];
    int length = snprintf(line, sizeof line, "t = %9.4g / %.4g  [%s] %3.0f%%  events %ld  %.1f s",
                          t, t_end, bar, 100.0 * fraction, st.n_events, elapsed);
    if (length < 0)
        return;
    if (length >= (int)sizeof line)
        length = (int)sizeof line - 1;
    /* Spaces over what a longer previous line left. */
    fprintf(p->out, "\r%s%*s", line, p->line_length > length ? p->line_length - length : 0, "");
    fflush(p->out);
    p->line_length = length;
}

static int progress_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    (void)values;
    progress *p = user;
    double elapsed = seconds_since(&p->started);
    if (p->last_drawn < 0.0 || elapsed - p->last_drawn >= 0.1) {
        draw(p, t, elapsed);
        p->last_drawn = elapsed;
    }
    return 0; /* a terminal that fails to show progress does not stop the run */
}

static int progress_finish(void *user, int status, double t, const char *message)
{
    (void)status;
    (void)t;
    (void)message;
    progress *p = user;
    if (p->line_length > 0) {
        fprintf(p->out, "\r%*s\r", p->line_length, "");
        fflush(p->out);
        p->line_length = 0;
    }
    return 0; /* the progress line is no result */
}

int hydae_sim_add_progress(hydae_sim *s, FILE *out)
{
    if (!s || !out)
        return HYDAE_ERR_ARG;
    progress *p = hy_calloc(1, sizeof *p);
    if (!p)
        return hy_sink_status(s, HYDAE_ERR_NOMEM, "the progress bar");
    p->sim = s;
    p->out = out;
    hy_sink sink = { progress_begin, progress_row, progress_finish, hy_free, p, 0 };
    int status = hy_sim_add_sink(s, &sink);
    if (status)
        hy_free(p);
    return hy_sink_status(s, status, "the progress bar");
}
