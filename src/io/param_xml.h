/*
** Settings from <Param_Transient .../> XML elements read from an open
** stream; hydae_sim_load_settings (include/hydae.h) opens a file and calls
** it. The fuzz target tests/fuzz/fuzz_settings_xml.c reads from memory.
*/
#ifndef HY_PARAM_XML_H
#define HY_PARAM_XML_H

#include "hydae.h"

#include <stdio.h>

/* Apply every attribute of every Param_Transient element read from `in`
** (called `name` in messages, "name:line:col: ...") as a setting. 0, or
** HYDAE_ERR_ARG / HYDAE_ERR_IO / HYDAE_ERR_NOMEM with hydae_sim_errmsg. */
int hy_settings_read_xml(hydae_sim *s, FILE *in, const char *name);

#endif
