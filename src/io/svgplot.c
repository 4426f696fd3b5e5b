/*
** SVG plots of a result table, written without any library: time panels
** with mode bands and event lines, or an x-y phase plot coloured by mode
** with numbered events. Layout in pixels; text widths are estimated (about
** 0.6 em per character of a sans-serif font).
**
** Reading the table: modes change only at events, and an event instant is
** a left-limit row followed by a right-limit row at the same time, so the
** mode between two rows at different times is the mode of the later row
** (a left-limit row still holds the old mode). A curve is broken at every
** right-limit row (values may jump there) and wherever a value is NaN
** (the variable has no value in the active mode).
**
** The colours are Okabe and Ito's palette for colour-blind readers
** ("Color Universal Design", 2002).
*/
#include "svgplot.h"
#include "plotclock.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const palette[] = { "#E69F00", "#0072B2", "#009E73", "#CC79A7",
                                       "#D55E00", "#56B4E9", "#999999", "#F0E442" };
enum { N_COLOURS = (int)(sizeof palette / sizeof palette[0]) };

enum {
    WIDTH = 960,
    MARGIN_LEFT = 84,
    MARGIN_RIGHT = 28,
    PANEL_HEIGHT = 150,
    PANEL_GAP = 16,
    STRIP_HEIGHT = 18,
    STRIP_GAP = 4,
    LEGEND_ROW = 20,
    PHASE_MAX_WIDTH = 720,
    PHASE_MAX_HEIGHT = 600,
    MAX_NUMBERED_EVENTS = 30,
    MIN_TICK_PIXELS = 16 /* closer clock ticks are thinned */
};

static const char curve_colour[] = "#222222";
static const char grid_colour[] = "#e4e4e4";
static const char frame_colour[] = "#808080";
static const char event_colour[] = "#555555";
static const char tick_colour[] = "#a0a0a0";

/* How a plot shows the events: a sample clock's ticks (plotclock.h) drawn
** lighter and thinned to one line in tick_stride, or left out; the other
** events as they are. */
typedef struct event_view {
    hy_clock clock;
    int hide_ticks;
    long tick_stride;
} event_view;

/* Is row k's event a clock tick, and is it drawn? */
static int is_tick(const event_view *ev, double t, int *drawn)
{
    long k;
    if (!hy_clock_tick(&ev->clock, t, &k))
        return 0;
    *drawn = !ev->hide_ticks && k % ev->tick_stride == 0;
    return 1;
}

/* ---- numbers on axes ---- */

double hy_plot_nice_step(double span, int target)
{
    if (!(span > 0.0) || !isfinite(span) || target < 1)
        return NAN; /* no ticks */
    double raw = span / (double)target;
    double power = pow(10.0, floor(log10(raw)));
    double mantissa = raw / power;
    double nice = mantissa < 1.5 ? 1.0 : mantissa < 3.5 ? 2.0 : mantissa < 7.5 ? 5.0 : 10.0;
    return nice * power;
}

void hy_plot_tick_label(double value, double step, char *buf, size_t size)
{
    if (fabs(value) < 1e-9 * step) {
        hy_format(buf, size, "0");
        return;
    }
    double magnitude = fabs(value);
    if (magnitude >= 1e6 || !(step >= 1e-5) || !isfinite(step)) {
        /* Enough digits that neighbouring ticks differ (1e300 + k 1e294). */
        double digits = step > 0.0 ? ceil(log10(magnitude / step)) + 1.0 : 6.0;
        int precision = isfinite(digits) && digits > 6.0 ? (digits < 17.0 ? (int)digits : 17) : 6;
        hy_format(buf, size, "%.*g", precision, value);
        return;
    }
    int decimals = (int)-floor(log10(step) + 1e-9);
    if (decimals < 0)
        decimals = 0;
    hy_format(buf, size, "%.*f", decimals, value);
}

typedef struct axis {
    double lo, hi, step;      /* values */
    double pixel_lo, pixel_hi; /* where lo and hi are drawn */
} axis;

static double to_pixel(const axis *a, double value)
{
    /* Halved when the span or the distance from lo overflows (times from
    ** -1e308 to 1e308; a value of 1.8e308 on an axis clamped to 1e307). */
    double fraction = isfinite(a->hi - a->lo) && isfinite(value - a->lo)
                          ? (value - a->lo) / (a->hi - a->lo)
                          : (0.5 * value - 0.5 * a->lo) / (0.5 * a->hi - 0.5 * a->lo);
    return a->pixel_lo + fraction * (a->pixel_hi - a->pixel_lo);
}

/* First and last tick index k (tick value k * step) inside the axis; none
** (first > last) when the indices would not be exact integers (values far
** from zero compared with their span) or the step is degenerate. */
static void tick_range(const axis *a, long *first, long *last)
{
    double k_first = ceil(a->lo / a->step - 1e-9), k_last = floor(a->hi / a->step + 1e-9);
    if (!(fabs(k_first) < 1e15 && fabs(k_last) < 1e15 && k_last - k_first < 1000)) {
        *first = 1;
        *last = 0;
        return;
    }
    *first = (long)k_first;
    *last = (long)k_last;
}

/* The time axis: exactly the table's time span. */
static void time_axis(const hy_results *r, axis *a, int target)
{
    a->lo = r->n_rows > 0 ? r->t[0] : 0.0;
    a->hi = r->n_rows > 0 ? r->t[r->n_rows - 1] : 1.0;
    if (!(a->hi > a->lo)) {
        /* One instant: a span around it wide enough for its magnitude
        ** (at t = 1e300, +-0.5 would not change it). */
        double half = fmax(0.5, 1e-6 * fabs(a->lo));
        a->lo = fmax(a->lo - half, -DBL_MAX);
        a->hi = fmin(a->hi + half, DBL_MAX);
    }
    double span = a->hi - a->lo;
    a->step = isfinite(span) ? hy_plot_nice_step(span, target)
                             : 2.0 * hy_plot_nice_step(0.5 * a->hi - 0.5 * a->lo, target);
}

/* A value axis: the finite values of n_vars columns with 5 % of their
** span added on either side, so that no curve runs along the frame; ticks
** at the steps inside. */
static void value_axis(const hy_results *r, const int *vars, int n_vars, axis *a, int target)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n_vars; i++)
        for (long k = 0; k < r->n_rows; k++) {
            double v = hy_results_value(r, k, vars[i]);
            if (isfinite(v)) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        }
    if (lo > hi) {
        lo = 0.0;
        hi = 1.0;
    } else if (lo == hi) {
        /* One value: 10 % of it either side, but at least the smallest
        ** double (10 % of 4e-324 is 0: a span of 0, NaN coordinates) and
        ** not past the largest (10 % more than 1.7e308 is infinite). */
        double pad = lo != 0.0 ? fmax(0.1 * fabs(lo), DBL_TRUE_MIN) : 1.0;
        lo = fmax(lo - pad, -DBL_MAX);
        hi = fmin(hi + pad, DBL_MAX);
    }
    if (!isfinite(hi - lo)) { /* values near the largest doubles */
        lo = fmax(lo, -1e307);
        hi = fmin(hi, 1e307);
    }
    double margin = 0.05 * (hi - lo);
    a->lo = fmax(lo - margin, -DBL_MAX);
    a->hi = fmin(hi + margin, DBL_MAX);
    a->step = hy_plot_nice_step(hi - lo, target);
}

/* ---- SVG text ---- */

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
** overlong forms, no surrogates, nothing above U+10FFFF) of a character
** XML allows (not U+FFFE, U+FFFF), or 0. A NUL ends any sequence. */
static int utf8_char_length(const unsigned char *s)
{
    unsigned lead = s[0];
    int length;
    unsigned code, min;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, code = lead & 0x1Fu, min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, code = lead & 0x0Fu, min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, code = lead & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < length; i++) {
        if ((s[i] & 0xC0u) != 0x80u)
            return 0;
        code = code << 6 | (s[i] & 0x3Fu);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) || code == 0xFFFE
        || code == 0xFFFF)
        return 0;
    return length;
}

/* Text for an SVG element or attribute: the SVG says it is UTF-8, so a
** name that is not (a CSV from elsewhere, a label cut in the middle of a
** character) has each bad byte replaced by U+FFFD; control characters,
** which XML 1.0 forbids, become spaces. */
static void put_escaped(FILE *out, const char *text)
{
    const unsigned char *c = (const unsigned char *)text;
    while (*c) {
        int length = utf8_char_length(c);
        if (length == 0) {
            fputs("\xEF\xBF\xBD", out); /* U+FFFD REPLACEMENT CHARACTER */
            c++;
            continue;
        }
        if (length > 1) {
            fwrite(c, 1, (size_t)length, out);
            c += length;
            continue;
        }
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*c < 32 ? ' ' : *c, out);
        }
        c++;
    }
}

/* <text> at (x, y); anchor "start", "middle" or "end"; extra attributes
** (may be ""). */
static void put_text(FILE *out, double x, double y, const char *anchor, int font_size,
                     const char *extra, const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s%s>", x, y,
            anchor, font_size, extra[0] ? " " : "", extra);
    put_escaped(out, text);
    fputs("</text>\n", out);
}

static double text_width(const char *text, int font_size)
{
    return 0.6 * font_size * (double)strlen(text);
}

/* The chart's name out of a mode column "mode(CHART)", else the name. */
static void chart_label(const char *column, char *buf, size_t size)
{
    size_t len = strlen(column);
    if (len > 6 && strncmp(column, "mode(", 5) == 0 && column[len - 1] == ')')
        hy_format(buf, size, "%.*s", (int)(len - 6), column + 5);
    else
        hy_format(buf, size, "%s", column);
}

/* ---- modes and events from the rows ---- */

/* Palette position of the first mode of each mode column: the columns'
** modes follow each other in the palette. */
static int colour_offset(const hy_results *r, int mode_var)
{
    int offset = 0;
    for (int v = 0; v < mode_var; v++)
        if (r->vars[v].is_mode)
            offset += r->vars[v].n_labels;
    return offset;
}

static const char *mode_colour(const hy_results *r, int mode_var, double mode)
{
    if (mode_var < 0 || !(mode >= 0.0))
        return curve_colour;
    return palette[(colour_offset(r, mode_var) + (int)mode) % N_COLOURS];
}

static const char *mode_label(const hy_results *r, int mode_var, double mode)
{
    const hy_result_var *var = &r->vars[mode_var];
    int k = (int)mode;
    return mode >= 0.0 && k < var->n_labels ? var->labels[k] : "?";
}

typedef void (*band_fn)(void *ctx, double t_start, double t_end, double mode);

/* The time intervals of constant mode of a mode column, merged. */
static void for_each_band(const hy_results *r, int mode_var, band_fn fn, void *ctx)
{
    double mode = NAN, start = 0.0, end = 0.0;
    for (long k = 0; k + 1 < r->n_rows; k++) {
        if (!(r->t[k] < r->t[k + 1]))
            continue;
        double here = hy_results_value(r, k + 1, mode_var);
        if (here == mode && r->t[k] == end) {
            end = r->t[k + 1];
            continue;
        }
        if (!isnan(mode))
            fn(ctx, start, end, mode);
        mode = here;
        start = r->t[k];
        end = r->t[k + 1];
    }
    if (!isnan(mode))
        fn(ctx, start, end, mode);
}

static long count_events(const hy_results *r)
{
    long n = 0;
    for (long k = 0; k < r->n_rows; k++)
        n += r->kind[k] == HYDAE_ROW_EVENT_LEFT;
    return n;
}

static int has_value(const hy_results *r, int var)
{
    for (long k = 0; k < r->n_rows; k++)
        if (isfinite(hy_results_value(r, k, var)))
            return 1;
    return 0;
}

static int first_mode_var(const hy_results *r)
{
    for (int v = 0; v < r->n_vars; v++)
        if (r->vars[v].is_mode)
            return v;
    return -1;
}

/* ---- curves ---- */

/* A polyline written as points arrive: opened at its second point, a lone
** point drawn as a dot; points closer than a quarter pixel to the last
** one are left out. */
typedef struct polyline {
    FILE *out;
    const char *colour;
    double width;
    int n_points;
    double first_x, first_y, last_x, last_y;
} polyline;

static void line_end(polyline *p)
{
    if (p->n_points == 1)
        fprintf(p->out, "<circle class=\"dot\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\"/>\n",
                p->first_x, p->first_y, p->width + 0.5, p->colour);
    else if (p->n_points > 1)
        fputs("\"/>\n", p->out);
    p->n_points = 0;
}

static void line_point(polyline *p, double x, double y)
{
    if (p->n_points == 0) {
        p->first_x = p->last_x = x;
        p->first_y = p->last_y = y;
        p->n_points = 1;
        return;
    }
    if (fabs(x - p->last_x) < 0.25 && fabs(y - p->last_y) < 0.25)
        return;
    if (p->n_points == 1)
        fprintf(p->out, "<polyline class=\"curve\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"%.1f\" stroke-linejoin=\"round\" points=\"%.2f,%.2f",
                p->colour, p->width, p->first_x, p->first_y);
    fprintf(p->out, " %.2f,%.2f", x, y);
    p->last_x = x;
    p->last_y = y;
    p->n_points++;
}

/* Column y_var against time (x_var < 0) or against column x_var, broken
** at right limits and NaN; coloured by the mode column mode_var (< 0: in
** colour). */
static void draw_trajectory(FILE *out, const hy_results *r, int x_var, int y_var, const axis *ax,
                            const axis *ay, int mode_var, double width, const char *colour)
{
    polyline line = { out, colour, width, 0, 0, 0, 0, 0 };
    for (long k = 0; k < r->n_rows; k++) {
        double x = x_var < 0 ? r->t[k] : hy_results_value(r, k, x_var);
        double y = hy_results_value(r, k, y_var);
        if (r->kind[k] == HYDAE_ROW_EVENT_RIGHT || !isfinite(x) || !isfinite(y))
            line_end(&line);
        if (!isfinite(x) || !isfinite(y))
            continue;
        if (line.n_points == 0 && mode_var >= 0)
            line.colour = mode_colour(r, mode_var, hy_results_value(r, k, mode_var));
        line_point(&line, to_pixel(ax, x), to_pixel(ay, y));
    }
    line_end(&line);
}

/* Column var against time in one colour (a time panel's curve), with a
** dot at each point if markers. */
static void draw_curve(FILE *out, const hy_results *r, int var, const axis *ax, const axis *ay,
                       const char *colour, int markers)
{
    draw_trajectory(out, r, -1, var, ax, ay, -1, 1.4, colour);
    for (long k = 0; markers && k < r->n_rows; k++) {
        double y = hy_results_value(r, k, var);
        if (isfinite(r->t[k]) && isfinite(y))
            fprintf(out, "<circle class=\"point\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.6\" "
                    "fill=\"%s\"/>\n", to_pixel(ax, r->t[k]), to_pixel(ay, y), colour);
    }
}

/* ---- pieces of a figure ---- */

static void put_header(FILE *out, int width, int height)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
            width, height, width, height, width, height);
}

/* Where the title and the note of a run that failed end. */
static double title_bottom(const hy_results *r)
{
    return r->stopped_early ? 54 : 36;
}

/* Title and, for a run that failed, a red note. */
static void put_title(FILE *out, const hy_results *r, const hy_plot_spec *spec, int width)
{
    const char *title = spec->title ? spec->title : r->title ? r->title : "";
    put_text(out, width / 2.0, 26, "middle", 17, "font-weight=\"bold\"", title);
    if (!r->stopped_early)
        return;
    char note[200];
    hy_format(note, sizeof note, "the run stopped early at t = %.6g: %.120s", r->t_stopped,
              r->stop_message);
    put_text(out, width / 2.0, 46, "middle", 12, "fill=\"#b00000\"", note);
}

/* One legend entry: a sample (drawn by kind) and its text. */
typedef enum sample_kind { SAMPLE_BAND, SAMPLE_LINE, SAMPLE_EVENT_LINE, SAMPLE_EVENT_DOT,
                           SAMPLE_START, SAMPLE_TICK_LINE, SAMPLE_NONE } sample_kind;

typedef struct legend {
    FILE *out;            /* NULL: only measure */
    double x, y;          /* next entry's place (text baseline) */
    double x_start, x_limit; /* rows wrap past x_limit */
} legend;

static void legend_entry(legend *g, sample_kind kind, const char *colour, const char *text)
{
    double width = 26 + text_width(text, 12) + 18;
    if (g->x + width > g->x_limit && g->x > g->x_start) {
        g->x = g->x_start;
        g->y += LEGEND_ROW;
    }
    double x = g->x, y = g->y;
    g->x += width;
    if (!g->out)
        return;
    switch (kind) {
    case SAMPLE_BAND:
        fprintf(g->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"12\" fill=\"%s\" "
                "fill-opacity=\"0.45\"/>\n", x, y - 10, colour);
        break;
    case SAMPLE_LINE:
        fprintf(g->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n", x, y - 4, x + 20, y - 4, colour);
        break;
    case SAMPLE_EVENT_LINE:
        fprintf(g->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-dasharray=\"4 3\"/>\n", x + 10, y - 12, x + 10, y + 2, event_colour);
        break;
    case SAMPLE_EVENT_DOT:
        fprintf(g->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"black\" "
                "stroke-width=\"1.5\"/>\n", x + 10, y - 4);
        break;
    case SAMPLE_TICK_LINE:
        fprintf(g->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-dasharray=\"1 3\"/>\n", x + 10, y - 12, x + 10, y + 2, tick_colour);
        break;
    case SAMPLE_NONE:
        break;
    case SAMPLE_START:
        fprintf(g->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"black\"/>\n",
                x + 6, y - 8);
        break;
    }
    put_text(g->out, x + 26, y, "start", 12, "", text);
}

/* The legend below the title at y_top: every mode of every mode column,
** then the event marker (and the start marker of a phase plot). out NULL
** only measures. Returns the y below the legend. */
static double put_legend(FILE *out, const hy_results *r, const hy_plot_spec *spec,
                         const event_view *ev, int phase, double y_top, int width)
{
    legend g = { out, MARGIN_LEFT, y_top + 14, MARGIN_LEFT, width - MARGIN_RIGHT };
    for (int s = 0; spec->n_series > 1 && s < spec->n_series; s++)
        legend_entry(&g, SAMPLE_LINE, palette[s % N_COLOURS], spec->series_labels[s]);
    int n_mode_vars = 0;
    for (int v = 0; v < r->n_vars; v++)
        n_mode_vars += r->vars[v].is_mode;
    for (int v = 0; v < r->n_vars; v++) {
        if (!r->vars[v].is_mode)
            continue;
        char chart[128], text[300];
        chart_label(r->vars[v].name, chart, sizeof chart);
        for (int k = 0; k < r->vars[v].n_labels; k++) {
            if (n_mode_vars > 1)
                hy_format(text, sizeof text, "%s: %s", chart, r->vars[v].labels[k]);
            else
                hy_format(text, sizeof text, "mode %s", r->vars[v].labels[k]);
            legend_entry(&g, phase ? SAMPLE_LINE : SAMPLE_BAND, mode_colour(r, v, k), text);
        }
    }
    if (phase) {
        legend_entry(&g, SAMPLE_START, "black", "start");
        legend_entry(&g, SAMPLE_EVENT_DOT, "black", "event (numbered in time order)");
    } else if (spec->x_label) { /* over a parameter: no events */
    } else if (!ev->clock.period || count_events(r) > ev->clock.n_ticks) {
        legend_entry(&g, SAMPLE_EVENT_LINE, event_colour, "event");
    }
    if (ev->clock.period > 0.0 && (!phase || ev->hide_ticks)) { /* phase: ticks are circles */
        char text[160];
        long n = ev->clock.n_ticks;
        if (ev->hide_ticks)
            hy_format(text, sizeof text, "clock: %ld ticks every %.6g, not drawn", n,
                      ev->clock.period);
        else if (ev->tick_stride > 1)
            hy_format(text, sizeof text, "clock tick every %.6g (%ld; 1 in %ld drawn)",
                      ev->clock.period, n, ev->tick_stride);
        else
            hy_format(text, sizeof text, "clock tick every %.6g", ev->clock.period);
        legend_entry(&g, ev->hide_ticks ? SAMPLE_NONE : SAMPLE_TICK_LINE, tick_colour, text);
    }
    return g.y + 10;
}

/* ---- time panels ---- */

typedef struct band_drawing {
    FILE *out;
    const hy_results *r;
    const axis *ax;
    int mode_var;
    double top, height, opacity;
    int with_label;
} band_drawing;

static void draw_band(void *ctx, double t_start, double t_end, double mode)
{
    const band_drawing *b = ctx;
    double x0 = to_pixel(b->ax, t_start), x1 = to_pixel(b->ax, t_end);
    const char *label = mode_label(b->r, b->mode_var, mode);
    fprintf(b->out, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
            "fill=\"%s\" fill-opacity=\"%.2f\"><title>",
            b->with_label ? "band" : "shade", x0, b->top, x1 - x0, b->height,
            mode_colour(b->r, b->mode_var, mode), b->opacity);
    put_escaped(b->out, label);
    fprintf(b->out, " from t = %.10g to %.10g</title></rect>\n", t_start, t_end);
    if (b->with_label && text_width(label, 11) + 6 < x1 - x0)
        put_text(b->out, (x0 + x1) / 2, b->top + b->height - 5, "middle", 11, "", label);
}

/* y ticks, grid lines and labels of one panel (or the phase plot's box). */
static void draw_y_ticks(FILE *out, const axis *ay, double x_left, double x_right)
{
    long first, last;
    tick_range(ay, &first, &last);
    for (long k = first; k <= last; k++) {
        double value = (double)k * ay->step, y = to_pixel(ay, value);
        char label[64];
        hy_plot_tick_label(value, ay->step, label, sizeof label);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
                x_left, y, x_right, y, grid_colour);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
                x_left - 4, y, x_left, y, frame_colour);
        put_text(out, x_left - 7, y + 4, "end", 11, "class=\"ytick\"", label);
    }
}

/* x grid lines and tick marks over [y_top, y_bottom]; labels below when
** with_labels. */
static void draw_x_ticks(FILE *out, const axis *ax, double y_top, double y_bottom, int with_labels)
{
    long first, last;
    tick_range(ax, &first, &last);
    for (long k = first; k <= last; k++) {
        double value = (double)k * ax->step, x = to_pixel(ax, value);
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x,
                y_top, x, y_bottom, grid_colour);
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x,
                y_bottom, x, y_bottom + 4, frame_colour);
        if (with_labels) {
            char label[64];
            hy_plot_tick_label(value, ax->step, label, sizeof label);
            put_text(out, x, y_bottom + 17, "middle", 11, "class=\"xtick\"", label);
        }
    }
}

static void draw_frame(FILE *out, double x, double y, double width, double height)
{
    fprintf(out, "<rect class=\"panel\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"%s\"/>\n", x, y, width, height, frame_colour);
}

static void draw_events(FILE *out, const hy_results *r, const event_view *ev, const axis *ax,
                        double y_top, double y_bottom)
{
    long number = 0;
    for (long k = 0; k < r->n_rows; k++) {
        if (r->kind[k] != HYDAE_ROW_EVENT_LEFT)
            continue;
        double x = to_pixel(ax, r->t[k]);
        int drawn;
        number++;
        if (is_tick(ev, r->t[k], &drawn)) {
            if (drawn)
                fprintf(out, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
                        "y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"1 3\"><title>clock tick "
                        "at t = %.17g</title></line>\n", x, y_top, x, y_bottom, tick_colour,
                        r->t[k]);
            continue;
        }
        fprintf(out, "<line class=\"event\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-dasharray=\"4 3\"><title>event %ld at t = %.17g</title>"
                "</line>\n", x, y_top, x, y_bottom, event_colour, number, r->t[k]);
    }
}

/* An axis label: the column's name, and its unit in brackets ("phi [rad]"). */
static void axis_label(const hy_result_var *var, char *buf, size_t size)
{
    if (var->unit && var->unit[0])
        hy_format(buf, size, "%s [%s]", var->name, var->unit);
    else
        hy_format(buf, size, "%s", var->name);
}

static void draw_y_label(FILE *out, double x, double y_center, const hy_result_var *var)
{
    char extra[96], label[600];
    hy_format(extra, sizeof extra, "transform=\"rotate(-90 %.1f %.1f)\"", x, y_center);
    axis_label(var, label, sizeof label);
    put_text(out, x, y_center, "middle", 13, extra, label);
}

static double panel_top(double panels_top, int p)
{
    return panels_top + p * (PANEL_HEIGHT + PANEL_GAP);
}

/* The columns of panel p: one, or a series each (hy_plot_spec.n_series). */
static int panel_columns(const hy_plot_spec *spec, int p, const int **vars)
{
    int per_panel = spec->n_series > 1 ? spec->n_series : 1;
    *vars = spec->panel_vars + (size_t)p * (size_t)per_panel;
    return per_panel;
}

/* The value axis of panel p, whose top is at y = top. */
static void panel_axis(const hy_results *r, const hy_plot_spec *spec, int p, double top, axis *ay)
{
    const int *vars;
    int n_vars = panel_columns(spec, p, &vars);
    value_axis(r, vars, n_vars, ay, 4);
    ay->pixel_lo = top + PANEL_HEIGHT;
    ay->pixel_hi = top;
}

static int time_plot(FILE *out, const hy_results *r, const hy_plot_spec *spec, event_view *ev)
{
    int n_strips = 0;
    for (int v = 0; v < r->n_vars; v++)
        n_strips += r->vars[v].is_mode;
    axis ax;
    time_axis(r, &ax, 10);
    ax.pixel_lo = MARGIN_LEFT;
    ax.pixel_hi = WIDTH - MARGIN_RIGHT;
    if (ev->clock.period > 0.0) { /* ticks at least MIN_TICK_PIXELS apart */
        double spacing = ev->clock.period / (ax.hi - ax.lo) * (ax.pixel_hi - ax.pixel_lo);
        double stride = ceil(MIN_TICK_PIXELS / spacing);
        ev->tick_stride = spacing > 0.0 && stride > 1.0 ? (stride < 1e9 ? (long)stride : 1000000000L) : 1;
    }
    double strips_top = put_legend(NULL, r, spec, ev, 0, title_bottom(r), WIDTH) + 8;
    double panels_top = strips_top + n_strips * (STRIP_HEIGHT + STRIP_GAP) + (n_strips ? 6 : 0);
    int n_panels = spec->n_panels;
    double panels_bottom = n_panels ? panel_top(panels_top, n_panels - 1) + PANEL_HEIGHT
                                    : panels_top;
    int height = (int)ceil(panels_bottom + 50);

    put_header(out, WIDTH, height);
    put_title(out, r, spec, WIDTH);
    put_legend(out, r, spec, ev, 0, title_bottom(r), WIDTH);

    if (n_panels == 0) /* only the strips: their time axis below them */
        draw_x_ticks(out, &ax, strips_top, panels_bottom, 1);
    /* Mode strips, one per chart, labelled with the chart's name. */
    double y = strips_top;
    for (int v = 0; v < r->n_vars; v++) {
        if (!r->vars[v].is_mode)
            continue;
        char chart[128];
        chart_label(r->vars[v].name, chart, sizeof chart);
        put_text(out, MARGIN_LEFT - 7, y + STRIP_HEIGHT - 5, "end", 11, "", chart);
        band_drawing b = { out, r, &ax, v, y, STRIP_HEIGHT, 0.45, 1 };
        for_each_band(r, v, draw_band, &b);
        y += STRIP_HEIGHT + STRIP_GAP;
    }

    /* Panels: shading by the first chart's modes and grids first, then the
    ** event lines across everything, then the curves and frames on top. */
    int shade_var = first_mode_var(r);
    for (int p = 0; p < n_panels; p++) {
        double top = panel_top(panels_top, p);
        axis ay;
        panel_axis(r, spec, p, top, &ay);
        if (shade_var >= 0) {
            band_drawing b = { out, r, &ax, shade_var, top, PANEL_HEIGHT, 0.13, 0 };
            for_each_band(r, shade_var, draw_band, &b);
        }
        draw_x_ticks(out, &ax, top, top + PANEL_HEIGHT, p == n_panels - 1);
        draw_y_ticks(out, &ay, ax.pixel_lo, ax.pixel_hi);
        const int *vars;
        panel_columns(spec, p, &vars);
        hy_result_var label = r->vars[vars[0]];
        if (spec->panel_labels) {
            label.name = (char *)spec->panel_labels[p];
            label.unit = "";
        }
        draw_y_label(out, 18, top + PANEL_HEIGHT / 2.0, &label);
    }
    draw_events(out, r, ev, &ax, strips_top, panels_bottom);
    for (int p = 0; p < n_panels; p++) {
        double top = panel_top(panels_top, p);
        axis ay;
        panel_axis(r, spec, p, top, &ay);
        const int *vars;
        int n_vars = panel_columns(spec, p, &vars), any_value = 0;
        for (int s = 0; s < n_vars; s++) {
            const char *colour = n_vars > 1 ? palette[s % N_COLOURS] : curve_colour;
            draw_curve(out, r, vars[s], &ax, &ay, colour, spec->markers);
            any_value |= has_value(r, vars[s]);
        }
        if (!any_value)
            put_text(out, (ax.pixel_lo + ax.pixel_hi) / 2, top + PANEL_HEIGHT / 2.0, "middle", 12,
                     "fill=\"#707070\"", "no value in this run");
        draw_frame(out, ax.pixel_lo, top, ax.pixel_hi - ax.pixel_lo, PANEL_HEIGHT);
    }
    put_text(out, (ax.pixel_lo + ax.pixel_hi) / 2, panels_bottom + 38, "middle", 13, "",
             spec->x_label ? spec->x_label : "time");
    fputs("</svg>\n", out);
    return ferror(out) ? HYDAE_ERR_IO : 0;
}

/* ---- phase plot ---- */

/* The phase plot's point at row k; 0 if either value is missing. */
static int phase_point(const hy_results *r, const hy_plot_spec *spec, long k, double *x,
                       double *y)
{
    *x = hy_results_value(r, k, spec->phase_x);
    *y = hy_results_value(r, k, spec->phase_y);
    return isfinite(*x) && isfinite(*y);
}

/* A label's box: [x0, x1] x [y0, y1] in pixels. */
typedef struct box {
    double x0, y0, x1, y1;
} box;

static int boxes_meet(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

enum { MAX_LABEL_BOXES = 2 * MAX_NUMBERED_EVENTS };

/* Where an event's number goes: the first place around its circle (right
** above, left above, right below, left below, right, left, above, below;
** then the same twice as far, three times as far) whose box meets no label
** and no circle placed before; 0 if none (the number stays in the
** circle's title). boxes: those placed, the circles' among them. Text
** boxes of font size 12: 0.6 em a character, from 10 px above the baseline
** to 3 px below (put_text's estimate). */
static int place_label(double cx, double cy, double width, const box *boxes, int n_boxes,
                       double *x, double *y)
{
    static const double dx[8] = { 1, -1, 1, -1, 1, -1, 0, 0 };
    static const double dy[8] = { -1, -1, 1, 1, 0, 0, -1, 1 };
    for (int ring = 1; ring <= 3; ring++)
        for (int k = 0; k < 8; k++) {
            double gap = 6.0 * ring;
            double left = dx[k] > 0 ? cx + gap : dx[k] < 0 ? cx - gap - width : cx - width / 2;
            double baseline = dy[k] < 0 ? cy - gap : dy[k] > 0 ? cy + gap + 10 : cy + 4;
            box b = { left, baseline - 10, left + width, baseline + 3 };
            int free = 1;
            for (int i = 0; i < n_boxes && free; i++)
                free = !boxes_meet(&b, &boxes[i]);
            if (free) {
                *x = left;
                *y = baseline;
                return 1;
            }
        }
    return 0;
}

/* The events of a phase plot as circles at their left-limit position (the
** right limit's if the left one has no value), numbered in time order
** without overlapping numbers; clock ticks left out when hidden. */
static void draw_phase_events(FILE *out, const hy_results *r, const hy_plot_spec *spec,
                              const event_view *ev, const axis *ax, const axis *ay)
{
    long n_drawn = 0, number = 0;
    int drawn;
    for (long k = 0; k < r->n_rows; k++)
        n_drawn += r->kind[k] == HYDAE_ROW_EVENT_LEFT
                   && (!is_tick(ev, r->t[k], &drawn) || !ev->hide_ticks);
    box boxes[MAX_LABEL_BOXES]; /* the circles first, then the numbers placed */
    double centre_x[MAX_NUMBERED_EVENTS], centre_y[MAX_NUMBERED_EVENTS];
    long numbers[MAX_NUMBERED_EVENTS];
    int n_boxes = 0;
    double px, py;
    for (long k = 0; k < r->n_rows; k++) {
        if (r->kind[k] != HYDAE_ROW_EVENT_LEFT || (is_tick(ev, r->t[k], &drawn) && ev->hide_ticks))
            continue;
        number++;
        if (!phase_point(r, spec, k, &px, &py)
            && !(k + 1 < r->n_rows && phase_point(r, spec, k + 1, &px, &py)))
            continue;
        double cx = to_pixel(ax, px), cy = to_pixel(ay, py);
        fprintf(out, "<circle class=\"event\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"white\" "
                "stroke=\"black\" stroke-width=\"1.5\"><title>event %ld at t = %.17g</title>"
                "</circle>\n", cx, cy, number, r->t[k]);
        if (n_drawn <= MAX_NUMBERED_EVENTS) {
            centre_x[n_boxes] = cx;
            centre_y[n_boxes] = cy;
            numbers[n_boxes] = number;
            boxes[n_boxes++] = (box){ cx - 5, cy - 5, cx + 5, cy + 5 };
        }
    }
    int n_circles = n_boxes;
    for (int i = 0; i < n_circles; i++) {
        char label[24];
        hy_format(label, sizeof label, "%ld", numbers[i]);
        double lx, ly, width = text_width(label, 12);
        if (place_label(centre_x[i], centre_y[i], width, boxes, n_boxes, &lx, &ly)) {
            put_text(out, lx, ly, "start", 12, "class=\"elabel\" font-weight=\"bold\"", label);
            boxes[n_boxes++] = (box){ lx, ly - 10, lx + width, ly + 3 };
        }
    }
}

static int phase_plot(FILE *out, const hy_results *r, const hy_plot_spec *spec,
                      const event_view *ev)
{
    axis ax, ay;
    value_axis(r, &spec->phase_x, 1, &ax, 6);
    value_axis(r, &spec->phase_y, 1, &ay, 6);
    /* The box takes the data's shape (equal scales) unless that is more
    ** than twice as tall as wide or the reverse. */
    double ratio = (ay.hi - ay.lo) / (ax.hi - ax.lo);
    ratio = fmin(2.0, fmax(0.5, ratio));
    double box_width = PHASE_MAX_WIDTH, box_height = box_width * ratio;
    if (box_height > PHASE_MAX_HEIGHT) {
        box_height = PHASE_MAX_HEIGHT;
        box_width = box_height / ratio;
    }
    int width = (int)ceil(MARGIN_LEFT + box_width + MARGIN_RIGHT);
    if (width < 560)
        width = 560;
    double box_left = MARGIN_LEFT + (width - MARGIN_LEFT - MARGIN_RIGHT - box_width) / 2;

    int mode_var = first_mode_var(r);
    double box_top = put_legend(NULL, r, spec, ev, 1, title_bottom(r), width) + 12;
    int height = (int)ceil(box_top + box_height + 52);

    put_header(out, width, height);
    put_title(out, r, spec, width);
    put_legend(out, r, spec, ev, 1, title_bottom(r), width);

    ax.pixel_lo = box_left;
    ax.pixel_hi = box_left + box_width;
    ay.pixel_lo = box_top + box_height;
    ay.pixel_hi = box_top;
    draw_x_ticks(out, &ax, box_top, box_top + box_height, 1);
    draw_y_ticks(out, &ay, ax.pixel_lo, ax.pixel_hi);
    draw_trajectory(out, r, spec->phase_x, spec->phase_y, &ax, &ay, mode_var, 1.6, curve_colour);
    draw_frame(out, box_left, box_top, box_width, box_height);
    char x_label[600];
    axis_label(&r->vars[spec->phase_x], x_label, sizeof x_label);
    put_text(out, box_left + box_width / 2, box_top + box_height + 38, "middle", 13, "", x_label);
    draw_y_label(out, box_left - 64, box_top + box_height / 2, &r->vars[spec->phase_y]);

    /* The start, and the events at their left-limit position (the right
    ** limit's if the left one has no value). */
    double px, py;
    for (long k = 0; k < r->n_rows; k++)
        if (phase_point(r, spec, k, &px, &py)) {
            fprintf(out, "<rect class=\"start\" x=\"%.2f\" y=\"%.2f\" width=\"8\" height=\"8\" "
                    "fill=\"black\"><title>start, t = %.10g</title></rect>\n",
                    to_pixel(&ax, px) - 4, to_pixel(&ay, py) - 4, r->t[k]);
            break;
        }
    draw_phase_events(out, r, spec, ev, &ax, &ay);
    fputs("</svg>\n", out);
    return ferror(out) ? HYDAE_ERR_IO : 0;
}

int hy_svg_plot(FILE *out, const hy_results *r, const hy_plot_spec *spec)
{
    event_view ev;
    hy_plot_find_clock(r, &ev.clock);
    ev.hide_ticks = spec->no_clock_ticks;
    ev.tick_stride = 1;
    if (spec->phase_x >= 0 && spec->phase_y >= 0)
        return phase_plot(out, r, spec, &ev);
    return time_plot(out, r, spec, &ev);
}
