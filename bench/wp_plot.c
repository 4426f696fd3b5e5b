/*
** Work-precision plot as SVG (see wp_plot.h). A grid of panels, three per
** row, under a header with the title and the legend. Each panel has its
** own ranges: x from the smallest to the largest scd shown (whole digits,
** ticks every 1, 2 or 5 digits), y over whole decades of CPU time with a
** tick per decade and minor ticks at 2..9.
*/
#include "wp_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WP_COLUMNS 3
#define WP_PANEL_WIDTH 460.0
#define WP_PANEL_HEIGHT 300.0
#define WP_HEADER_HEIGHT 78.0
#define WP_MARGIN_LEFT 64.0
#define WP_MARGIN_RIGHT 16.0
#define WP_MARGIN_TOP 30.0
#define WP_MARGIN_BOTTOM 46.0
#define WP_OUTER_PAD 10.0

static int point_shown(double scd, double cpu_ms)
{
    return isfinite(scd) && isfinite(cpu_ms) && cpu_ms > 0.0;
}

/* Text with &, < and > escaped. */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* A decade's label: 0.001 .. 1000 written out, others as 1e-5. */
static void decade_label(int exponent, char *buf, size_t size)
{
    if (exponent >= 0 && exponent <= 4)
        snprintf(buf, size, "%.0f", pow(10.0, exponent));
    else if (exponent < 0 && exponent >= -3)
        snprintf(buf, size, "%.*f", -exponent, pow(10.0, exponent));
    else
        snprintf(buf, size, "1e%d", exponent);
}

typedef struct panel_frame {
    double left, top, width, height;    /* plot area, pixels */
    double scd_min, scd_max;            /* x range */
    int decade_min, decade_max;         /* y range, log10(ms) */
} panel_frame;

static double frame_x(const panel_frame *pf, double scd)
{
    return pf->left + (scd - pf->scd_min) / (pf->scd_max - pf->scd_min)
                          * pf->width;
}

static double frame_y(const panel_frame *pf, double cpu_ms)
{
    double frac = (log10(cpu_ms) - pf->decade_min)
                  / (double)(pf->decade_max - pf->decade_min);
    return pf->top + (1.0 - frac) * pf->height;
}

/* Ranges of the panel from its series; 0 if it has no point. */
static int panel_ranges(const char *panel, const wp_series *series,
                        int n_series, panel_frame *pf)
{
    double scd_lo = INFINITY, scd_hi = -INFINITY;
    double cpu_lo = INFINITY, cpu_hi = -INFINITY;
    for (int s = 0; s < n_series; s++) {
        if (strcmp(series[s].panel, panel) != 0)
            continue;
        for (int k = 0; k < series[s].n; k++) {
            double scd = series[s].scd[k], cpu = series[s].cpu_ms[k];
            if (!point_shown(scd, cpu))
                continue;
            scd_lo = fmin(scd_lo, scd);
            scd_hi = fmax(scd_hi, scd);
            cpu_lo = fmin(cpu_lo, cpu);
            cpu_hi = fmax(cpu_hi, cpu);
        }
    }
    if (!isfinite(scd_lo))
        return 0;
    pf->scd_min = floor(scd_lo - 0.2);
    pf->scd_max = ceil(scd_hi + 0.2);
    pf->decade_min = (int)floor(log10(cpu_lo));
    pf->decade_max = (int)ceil(log10(cpu_hi));
    if (pf->decade_max <= pf->decade_min)
        pf->decade_max = pf->decade_min + 1;
    return 1;
}

static void draw_axes(FILE *f, const panel_frame *pf)
{
    char label[32];
    double right = pf->left + pf->width, bottom = pf->top + pf->height;
    /* y: decades (grid line, tick, label) and minor ticks. */
    for (int e = pf->decade_min; e <= pf->decade_max; e++) {
        double y = frame_y(pf, pow(10.0, e));
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                   "stroke='#dddddd'/>\n", pf->left, y, right, y);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                   "stroke='black'/>\n", pf->left - 5, y, pf->left, y);
        decade_label(e, label, sizeof label);
        fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end' "
                   "font-size='11'>%s</text>\n", pf->left - 8, y + 4, label);
        if (e == pf->decade_max)
            break;
        for (int m = 2; m <= 9; m++) {
            double ym = frame_y(pf, m * pow(10.0, e));
            fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                       "stroke='black'/>\n", pf->left - 3, ym, pf->left, ym);
        }
    }
    /* x: whole digits, every 1, 2 or 5. */
    double span = pf->scd_max - pf->scd_min;
    double step = span <= 8.0 ? 1.0 : span <= 16.0 ? 2.0 : 5.0;
    for (double v = ceil(pf->scd_min / step) * step; v <= pf->scd_max + 1e-9;
         v += step) {
        double x = frame_x(pf, v);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                   "stroke='#dddddd'/>\n", x, pf->top, x, bottom);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                   "stroke='black'/>\n", x, bottom, x, bottom + 5);
        fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' "
                   "font-size='11'>%g</text>\n", x, bottom + 17,
                v == 0.0 ? 0.0 : v);    /* no "-0" */
    }
    fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
               "fill='none' stroke='black'/>\n",
            pf->left, pf->top, pf->width, pf->height);
    fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12'>"
               "scd (significant correct digits)</text>\n",
            pf->left + pf->width / 2, bottom + 34);
    fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12' "
               "transform='rotate(-90 %.1f %.1f)'>"
               "CPU time [ms], log scale</text>\n",
            pf->left - 44, pf->top + pf->height / 2, pf->left - 44,
            pf->top + pf->height / 2);
}

static void draw_series(FILE *f, const panel_frame *pf, const wp_series *s)
{
    char points[WP_MAX_POINTS * 32];
    size_t used = 0;
    int n_shown = 0;
    points[0] = '\0';
    for (int k = 0; k < s->n; k++) {
        if (!point_shown(s->scd[k], s->cpu_ms[k]))
            continue;
        used += (size_t)snprintf(points + used, sizeof points - used,
                                 "%.1f,%.1f ", frame_x(pf, s->scd[k]),
                                 frame_y(pf, s->cpu_ms[k]));
        n_shown++;
    }
    if (n_shown == 0)
        return;
    fprintf(f, "<g><title>");
    put_text(f, s->label);
    fprintf(f, "</title>\n");
    if (!s->dashed) {
        fprintf(f, "<polyline points='%s' fill='none' stroke='%s' "
                   "stroke-width='2'/>\n", points, s->colour);
    } else {
        fprintf(f, "<polyline points='%s' fill='none' stroke='%s' "
                   "stroke-width='2' stroke-dasharray='7,7'/>\n",
                points, s->colour);
        if (s->colour_alt)
            fprintf(f, "<polyline points='%s' fill='none' stroke='%s' "
                       "stroke-width='2' stroke-dasharray='7,7' "
                       "stroke-dashoffset='7'/>\n", points, s->colour_alt);
    }
    for (int k = 0; k < s->n; k++) {
        if (!point_shown(s->scd[k], s->cpu_ms[k]))
            continue;
        double x = frame_x(pf, s->scd[k]), y = frame_y(pf, s->cpu_ms[k]);
        if (!s->dashed)
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n",
                    x, y, s->colour);
        else
            fprintf(f, "<rect x='%.1f' y='%.1f' width='7' height='7' "
                       "fill='white' stroke='%s' stroke-width='1.5'/>\n",
                    x - 3.5, y - 3.5, s->colour);
    }
    fprintf(f, "</g>\n");
}

static void draw_legend(FILE *f, double width, const wp_legend_entry *legend,
                        int n_legend)
{
    double x = 20.0, y = 50.0;
    for (int k = 0; k < n_legend; k++) {
        double entry_width = 84.0 + 7.5 * (double)strlen(legend[k].label);
        if (x + entry_width > width - 10.0) {
            x = 20.0;
            y += 18.0;
        }
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' "
                   "stroke-width='2'/>\n", x, y, x + 24, y, legend[k].colour);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' "
                   "stroke-width='2' stroke-dasharray='5,4'/>\n",
                x + 30, y, x + 54, y, legend[k].colour);
        fprintf(f, "<text x='%.1f' y='%.1f' font-size='12'>", x + 60, y + 4);
        put_text(f, legend[k].label);
        fprintf(f, "</text>\n");
        x += entry_width;
    }
    fprintf(f, "<text x='%.1f' y='%.1f' font-size='12' fill='#444444'>"
               "solid line, filled circles: hydae; dashed line, open squares: "
               "SUNDIALS (same colour: the two sides of a pairing); one point "
               "per rtol</text>\n", 20.0, y + 20.0);
}

int wp_plot_write_svg(const char *path, const char *title,
                      const char *const *panels, int n_panels,
                      const wp_series *series, int n_series,
                      const wp_legend_entry *legend, int n_legend)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    int n_rows = (n_panels + WP_COLUMNS - 1) / WP_COLUMNS;
    double width = 2 * WP_OUTER_PAD + WP_COLUMNS * WP_PANEL_WIDTH;
    double height = WP_HEADER_HEIGHT + n_rows * WP_PANEL_HEIGHT + WP_OUTER_PAD;
    fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
               "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' "
               "height='%.0f' viewBox='0 0 %.0f %.0f' "
               "font-family='DejaVu Sans, Arial, sans-serif'>\n",
            width, height, width, height);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='20' y='26' font-size='17' font-weight='bold'>");
    put_text(f, title);
    fprintf(f, "</text>\n");
    draw_legend(f, width, legend, n_legend);

    for (int p = 0; p < n_panels; p++) {
        double panel_left = WP_OUTER_PAD + (p % WP_COLUMNS) * WP_PANEL_WIDTH;
        double panel_top =
            WP_HEADER_HEIGHT + (p / WP_COLUMNS) * WP_PANEL_HEIGHT;
        panel_frame pf;
        pf.left = panel_left + WP_MARGIN_LEFT;
        pf.top = panel_top + WP_MARGIN_TOP;
        pf.width = WP_PANEL_WIDTH - WP_MARGIN_LEFT - WP_MARGIN_RIGHT;
        pf.height = WP_PANEL_HEIGHT - WP_MARGIN_TOP - WP_MARGIN_BOTTOM;
        fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' "
                   "font-size='14' font-weight='bold'>",
                pf.left + pf.width / 2, panel_top + 20);
        put_text(f, panels[p]);
        fprintf(f, "</text>\n");
        if (!panel_ranges(panels[p], series, n_series, &pf)) {
            fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' "
                       "font-size='12'>no results</text>\n",
                    pf.left + pf.width / 2, pf.top + pf.height / 2);
            continue;
        }
        draw_axes(f, &pf);
        for (int s = 0; s < n_series; s++)
            if (strcmp(series[s].panel, panels[p]) == 0)
                draw_series(f, &pf, &series[s]);
    }
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
