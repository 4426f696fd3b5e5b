/*
** Output files of a command, written safely: a regular file is written to
** a temporary file in its directory and renamed over its name when the
** command is done with it (so an existing file is replaced whole or not
** at all); standard output ("-"), devices (/dev/null), FIFOs and
** /proc/self/fd/N are written directly and never removed. Also the check
** that no output names an input or another output of the same command.
*/
#ifndef HY_OUTFILE_H
#define HY_OUTFILE_H

#include <limits.h>
#include <stdio.h>

typedef struct hy_outfile {
    const char *path;             /* as given; "-": standard output; NULL: none */
    char final_path[PATH_MAX];    /* the name renamed onto (symbolic links followed) */
    char temp_path[PATH_MAX];     /* "" when written directly */
    FILE *file;
} hy_outfile;

/* One file named on the command line: the option that named it ("-o",
** "--plot", "the model file"), its path, 1 if the command writes it. */
typedef struct hy_named_file {
    const char *option;
    const char *path;
    int is_output;
} hy_named_file;

/* 0, or 2 (usage error, message on stderr prefixed by `prog`) when an
** output is the same file as an input or another output: the same device
** and inode when both exist, else the same normalised path. Standard
** output "-" and character devices are not compared. */
int hy_check_distinct_files(const hy_named_file *files, int n, const char *prog);

/* Open o->path for writing (mode "w" or "wb"); nothing when o->path is
** NULL. 0, or 2 with a message on stderr. */
int hy_outfile_open(hy_outfile *o, const char *mode, const char *prog);

/* Flush and close. keep = 1: the file goes to its name (rename of the
** temporary file); keep = 0: a temporary file is removed and an existing
** file of that name stays as it was (a file written directly stays). 0,
** or -1 when a write, the close or the rename failed (errno set). */
int hy_outfile_close(hy_outfile *o, int keep);

/* Flush and check standard output at the end of a command: a failed write
** (a full disk, `> /dev/full`) turns status 0 into 1, with a message. */
int hy_finish_stdout(int status, const char *prog);

#endif
