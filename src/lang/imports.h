/*
** Where `import NAME;` finds its library: NAME.hym next to the model file,
** then in each directory of the environment variable HYDAE_PATH (separated
** by ':'), then in hydae's own lib/ (HYDAE_LIB_DIR, set by the build).
** The texts read stay alive until hy_lang_imports_free, after the
** diagnostics that quote them.
*/
#ifndef HY_LANG_IMPORTS_H
#define HY_LANG_IMPORTS_H

#include "lang/parse.h"

typedef struct hy_lang_imports {
    const char *model_path;  /* its directory is searched first */
    char **texts;            /* read files, then their names, owned */
    int n_texts, cap_texts;
    char message[1024];      /* what was tried, for a library not found */
} hy_lang_imports;

void hy_lang_imports_init(hy_lang_imports *im, const char *model_path);
hy_import_loader hy_lang_imports_loader(hy_lang_imports *im);
void hy_lang_imports_free(hy_lang_imports *im);

#endif
