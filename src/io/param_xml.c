/*
** Settings from a <Param_Transient .../> XML element (seed 002's format),
** read with expat: every attribute of every Param_Transient element in the
** file goes through hydae_sim_set_option, so the names, ranges and messages
** are those of the one settings table. Other elements are ignored (the
** element may sit inside a larger model file). Built only when expat is
** present; otherwise loading reports that clearly. expat allocates
** through the library's allocator hook (XML_ParserCreate_MM).
*/
#include "param_xml.h"
#include "sinks.h"
#include "core/core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef HYDAE_HAVE_EXPAT
#include <expat.h>

typedef struct xml_reader {
    hydae_sim *sim;
    XML_Parser parser;
    const char *path;
    int status;
    int n_elements;
} xml_reader;

static void XMLCALL start_element(void *user, const XML_Char *name, const XML_Char **attrs)
{
    xml_reader *r = user;
    if (r->status || strcmp(name, "Param_Transient") != 0)
        return;
    r->n_elements++;
    for (int i = 0; attrs[i] && attrs[i + 1]; i += 2) {
        int status = hydae_sim_set_option(r->sim, attrs[i], attrs[i + 1]);
        if (status) {
            char reason[900];
            hy_format(reason, sizeof reason, "%s", hydae_sim_errmsg(r->sim));
            hy_sim_fail(r->sim, "%s:%lu:%lu: Param_Transient: %s", r->path,
                        (unsigned long)XML_GetCurrentLineNumber(r->parser),
                        (unsigned long)XML_GetCurrentColumnNumber(r->parser) + 1, reason);
            r->status = status;
            XML_StopParser(r->parser, XML_FALSE);
            return;
        }
    }
}

int hy_settings_read_xml(hydae_sim *s, FILE *in, const char *path)
{
    if (!s || !in || !path)
        return HYDAE_ERR_ARG;
    static const XML_Memory_Handling_Suite memory = { hy_malloc, hy_realloc, hy_free };
    XML_Parser parser = XML_ParserCreate_MM(NULL, &memory, NULL);
    if (!parser) {
        hy_sim_fail(s, "%s: out of memory", path);
        return HYDAE_ERR_NOMEM;
    }
    xml_reader reader = { s, parser, path, 0, 0 };
    XML_SetUserData(parser, &reader);
    XML_SetStartElementHandler(parser, start_element);
    char buffer[8192];
    int done = 0;
    while (!done && reader.status == 0) {
        size_t got = fread(buffer, 1, sizeof buffer, in);
        done = got < sizeof buffer;
        if (XML_Parse(parser, buffer, (int)got, done) == XML_STATUS_ERROR && reader.status == 0) {
            enum XML_Error code = XML_GetErrorCode(parser);
            if (code == XML_ERROR_NO_MEMORY) {
                hy_sim_fail(s, "%s: out of memory", path);
                reader.status = HYDAE_ERR_NOMEM;
            } else {
                hy_sim_fail(s, "%s:%lu:%lu: %s", path,
                            (unsigned long)XML_GetCurrentLineNumber(parser),
                            (unsigned long)XML_GetCurrentColumnNumber(parser) + 1,
                            XML_ErrorString(code));
                reader.status = HYDAE_ERR_ARG;
            }
        }
    }
    if (reader.status == 0 && ferror(in)) {
        hy_sim_fail(s, "%s: read error", path);
        reader.status = HYDAE_ERR_IO;
    }
    if (reader.status == 0 && reader.n_elements == 0) {
        hy_sim_fail(s, "%s: no <Param_Transient .../> element", path);
        reader.status = HYDAE_ERR_ARG;
    }
    XML_ParserFree(parser);
    return reader.status;
}

int hydae_sim_load_settings(hydae_sim *s, const char *path)
{
    if (!s || !path)
        return HYDAE_ERR_ARG;
    FILE *in = fopen(path, "rb");
    if (!in) {
        hy_sim_fail(s, "%s: cannot open: %s", path, strerror(errno));
        return HYDAE_ERR_IO;
    }
    int status = hy_settings_read_xml(s, in, path);
    fclose(in);
    return status;
}

#else

int hy_settings_read_xml(hydae_sim *s, FILE *in, const char *path)
{
    (void)in;
    if (!s)
        return HYDAE_ERR_ARG;
    hy_sim_fail(s, "%s: this hydae was built without expat, so it cannot read XML settings "
                "(install Debian's libexpat1-dev and rebuild)", path ? path : "(null)");
    return HYDAE_ERR_ARG;
}

int hydae_sim_load_settings(hydae_sim *s, const char *path)
{
    return hy_settings_read_xml(s, NULL, path);
}

#endif
