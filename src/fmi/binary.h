/*
** An FMU's shared library: found in the platform folder, loaded with
** dlopen, and its functions resolved by name into the tables of fmi_api.h.
*/
#ifndef HY_FMI_BINARY_H
#define HY_FMI_BINARY_H

#include "fmi/fmi_api.h"
#include <stddef.h>

/* The platform folder of this machine: "linux64" (FMI 2.0) or
** "x86_64-linux" (FMI 3.0), or NULL on a platform import does not know. */
const char *hy_fmi_platform(int fmi_major);

/* dlopen dir/binaries/<platform>/<identifier>.so. *handle, 0; or -1 with
** a message naming fmu and what is missing (the platform folders the FMU
** does have, dlerror's reason). */
int hy_fmi_binary_open(void **handle, const char *dir, int fmi_major, const char *identifier,
                       const char *fmu, char *err, size_t err_size);
/* Resolve every function of the table that Model Exchange (cosim 0) or
** Co-Simulation (1) needs; -1 naming the first one missing. */
int hy_fmi2_resolve(void *handle, hy_fmi2_functions *f, int cosim, const char *fmu, char *err,
                    size_t err_size);
int hy_fmi3_resolve(void *handle, hy_fmi3_functions *f, int cosim, const char *fmu, char *err,
                    size_t err_size);
void hy_fmi_binary_close(void *handle);

#endif
