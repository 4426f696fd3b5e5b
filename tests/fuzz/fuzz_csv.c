/*
** libFuzzer target: `hydae plot FILE.csv`, the CSV results reader
** (src/io/csvread.c) and the SVG plot of what it read (src/io/svgplot.c),
** through hy_plot_csv as src/cli/plot.c calls it.
**
** The input is a CSV file. A first line "#@vars=A,B", "#@phase=X,Y" or
** "#@title=TEXT" (a comment to the reader) chooses the plot options as
** --vars, --phase and --title would; without it every column gets a panel.
**
** The plot goes to memory and is checked: it must be well-formed XML (the
** SVG says it is UTF-8) and every coordinate a finite number (issue 13's
** D9: huge times once gave "nan" coordinates). A plot that fails either
** check aborts: a finding like a crash.
*/
#define _POSIX_C_SOURCE 200809L

#include "io/plot.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct plot_request {
    hydae_plot_options options;
    char value[512];
    char phase_x[256], phase_y[256];
} plot_request;

/* Options from a first line "#@KEY=VALUE"; 0, or -1 for a line the
** command would refuse (an empty --phase half): such inputs are skipped. */
static int read_request(const uint8_t *data, size_t size, plot_request *req)
{
    memset(req, 0, sizeof *req);
    if (size < 2 || data[0] != '#' || data[1] != '@')
        return 0;
    size_t len = 2;
    while (len < size && data[len] != '\n' && data[len] != '\r')
        len++;
    size_t n = len - 2 < sizeof req->value - 1 ? len - 2 : sizeof req->value - 1;
    memcpy(req->value, data + 2, n);
    req->value[n] = '\0';
    if (strlen(req->value) != n)
        return -1; /* a NUL in the line: the command line cannot pass it */
    if (strncmp(req->value, "vars=", 5) == 0) {
        req->options.vars = req->value + 5;
    } else if (strncmp(req->value, "title=", 6) == 0) {
        req->options.title = req->value + 6;
    } else if (strncmp(req->value, "phase=", 6) == 0) {
        /* As src/cli/plot.c's parse_phase: two non-empty names, one comma. */
        const char *phase = req->value + 6;
        const char *comma = strchr(phase, ',');
        if (!comma || comma == phase || !comma[1] || strchr(comma + 1, ',')
            || (size_t)(comma - phase) >= sizeof req->phase_x
            || strlen(comma + 1) >= sizeof req->phase_y)
            return -1;
        memcpy(req->phase_x, phase, (size_t)(comma - phase));
        req->phase_x[comma - phase] = '\0';
        strcpy(req->phase_y, comma + 1);
        req->options.phase_x = req->phase_x;
        req->options.phase_y = req->phase_y;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    plot_request req;
    if (read_request(data, size, &req))
        return 0;
    plot_and_check(hy_plot_csv, "fuzz.csv", data, size, &req.options);
    return 0;
}
