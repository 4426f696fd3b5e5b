/*
** What the plot fuzz targets (fuzz_csv, fuzz_mat) share: the input as a
** stream, and the check of the plot: the SVG must be well-formed XML (it
** says it is UTF-8) and every coordinate a finite number; a plot that
** fails either check aborts, a finding like a crash. Without expat, no
** check.
*/
#ifndef HY_FUZZ_PLOT_H
#define HY_FUZZ_PLOT_H

/* Needs _POSIX_C_SOURCE 200809L (fmemopen) before the first include. */

#include "io/plot.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HYDAE_HAVE_EXPAT
#include <expat.h>
#endif

/* The input as a stream to read. fmemopen may refuse a zero-sized buffer:
** an empty file is a one-byte buffer read past its byte. */
static FILE *open_input(const uint8_t *data, size_t size)
{
    static const char empty[1] = "";
    FILE *in = fmemopen(size ? (void *)data : (void *)empty, size ? size : 1, "rb");
    if (!in)
        abort();
    if (size == 0)
        (void)fgetc(in);
    return in;
}

#ifdef HYDAE_HAVE_EXPAT
/* Attributes that hold numbers (coordinates and sizes). */
static int is_numeric_attribute(const char *name)
{
    static const char *const names[] = { "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r",
                                         "width", "height", "points", "viewBox" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void XMLCALL check_element(void *user, const XML_Char *name, const XML_Char **attrs)
{
    (void)name;
    (void)user;
    for (int i = 0; attrs[i] && attrs[i + 1]; i += 2) {
        if (!is_numeric_attribute(attrs[i]))
            continue;
        for (const char *c = attrs[i + 1]; *c; c++)
            if (!strchr("0123456789.,-+e ", *c)) {
                fprintf(stderr, "fuzz: <%s %s=\"%s\">: not a finite number\n", name,
                        attrs[i], attrs[i + 1]);
                abort();
            }
    }
}

static void check_svg(const char *svg, size_t length)
{
    XML_Parser parser = XML_ParserCreate(NULL);
    if (!parser)
        return;
    XML_SetStartElementHandler(parser, check_element);
    if (XML_Parse(parser, svg, (int)length, 1) == XML_STATUS_ERROR) {
        fprintf(stderr, "fuzz: the SVG is not well-formed XML: line %lu column %lu: %s\n",
                (unsigned long)XML_GetCurrentLineNumber(parser),
                (unsigned long)XML_GetCurrentColumnNumber(parser) + 1,
                XML_ErrorString(XML_GetErrorCode(parser)));
        abort();
    }
    XML_ParserFree(parser);
}
#else
static void check_svg(const char *svg, size_t length)
{
    (void)svg;
    (void)length;
}
#endif

/* The plot of the input (hy_plot_csv or hy_plot_mat) to memory, checked
** when the reader accepted the input. */
typedef int (*plot_fn)(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt,
                       char *err, size_t err_size);

static void plot_and_check(plot_fn plot, const char *name, const uint8_t *data, size_t size,
                           const hydae_plot_options *options)
{
    FILE *in = open_input(data, size);
    char *svg = NULL;
    size_t svg_length = 0;
    FILE *out = open_memstream(&svg, &svg_length);
    if (!out)
        abort();
    char err[1024];
    int status = plot(in, name, out, options, err, sizeof err);
    fclose(in);
    fclose(out);
    if (status == 0)
        check_svg(svg, svg_length);
    free(svg);
}

#endif
