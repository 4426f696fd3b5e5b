/*
** The check of a plot made by a fuzz target (fuzz_csv, fuzz_mat): the SVG
** must be well-formed XML (it says it is UTF-8) and every coordinate a
** finite number; a plot that fails either check aborts, a finding like a
** crash. Without expat, no check.
*/
#ifndef HY_FUZZ_SVG_CHECK_H
#define HY_FUZZ_SVG_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HYDAE_HAVE_EXPAT
#include <expat.h>
#endif

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

#endif
