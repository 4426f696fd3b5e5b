/*
** An FMU's ZIP archive unpacked into a private temporary directory
** (libzip), and that directory removed again.
*/
#ifndef HY_FMI_ARCHIVE_H
#define HY_FMI_ARCHIVE_H

#include <stddef.h>

/* Unpack the archive at path into a new directory made with mkdtemp under
** $TMPDIR (or /tmp), whose name goes to dir. Entries that would leave the
** directory (an absolute name, a ".." component) are refused, and so are
** archives past 100,000 entries or 4 GiB unpacked. 0, or -1 with a message
** naming the file in err and nothing left on disk. */
int hy_fmi_archive_extract(const char *path, char *dir, size_t dir_size, char *err,
                           size_t err_size);
/* Remove the directory and everything in it (never following symbolic
** links). 0, or -1 if something could not be removed. */
int hy_fmi_archive_remove(const char *dir);
/* Read a whole file into memory (hy_malloc; *size bytes plus a NUL). NULL
** with errno set on failure. */
char *hy_fmi_read_file(const char *path, size_t *size);

#endif
